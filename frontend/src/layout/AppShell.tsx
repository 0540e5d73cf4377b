import { LogOut } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useClient } from 'urql';
import { Button } from '../components/Button';
import { Logo } from '../components/Logo';
import { SignOutDocument } from '../graphql/generated';
import { useResetClient } from '../lib/clientContext';
import { useSession, type SignInState } from '../lib/session';
import { navSections } from './nav';
import { ReachabilityNotice } from './ReachabilityNotice';
import styles from './AppShell.module.css';

function initials(name: string, email: string): string {
  const source = name.trim() || email;
  const parts = source.split(/[\s@.]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || '?';
}

export function AppShell({ children }: { children: ReactNode }) {
  const { user, workspace } = useSession();
  const client = useClient();
  const reset = useResetClient();
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);

  const signOut = async () => {
    setSigningOut(true);
    const result = await client.mutation(SignOutDocument, {}, { authRedirect: false }).toPromise();
    setSigningOut(false);
    reset();
    // Say "You are signed out" only when the server confirmed it.
    navigate('/sign-in', { replace: true, state: { signedOut: !result.error } satisfies SignInState });
  };

  return (
    <div className={styles.shell}>
      <a href="#main" className={styles.skip}>
        Skip to content
      </a>
      <aside className={styles.sidebar}>
        <div className={styles.brand}>
          <Logo />
          <div>
            <div className={styles.brandName}>Switchboard</div>
            <div className={styles.workspace} title={workspace.name}>
              {workspace.name}
            </div>
          </div>
        </div>
        <nav className={styles.nav} aria-label="Console">
          {navSections.map((section, i) => (
            <div key={section.title ?? i} className={section.title ? styles.section : undefined}>
              {section.title && <div className={styles.sectionTitle}>{section.title}</div>}
              <ul className={styles.list}>
                {section.items.map((item) => (
                  <li key={item.to}>
                    <NavLink
                      to={item.to}
                      end={item.end}
                      className={({ isActive }) => `${styles.link} ${isActive ? styles.active : ''}`}
                    >
                      <item.icon size={16} aria-hidden="true" />
                      {item.label}
                      {item.soon && <span className={styles.soon}>Soon</span>}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </aside>
      <div className={styles.main}>
        <header className={styles.topbar}>
          <div className={styles.crumbs}>
            <span>{workspace.name}</span>
          </div>
          <div className={styles.user}>
            <span className={styles.avatar} aria-hidden="true">
              {initials(user.name, user.email)}
            </span>
            <span className={styles.email}>{user.email}</span>
            <Button variant="ghost" size="sm" icon={<LogOut size={14} aria-hidden="true" />} onClick={signOut} loading={signingOut}>
              Sign out
            </Button>
          </div>
        </header>
        <ReachabilityNotice />
        <main id="main" className={styles.content} tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
