import { Lock } from 'lucide-react';
import { Badge, type BadgeTone } from '../../components/Badge';
import type { LinkFieldsFragment } from '../../graphql/generated';
import { linkState, type LinkState } from './text';

const shown: Record<LinkState, { label: string; tone: BadgeTone; title: string }> = {
  active: { label: 'Active', tone: 'green', title: 'Redirects visitors' },
  archived: { label: 'Archived', tone: 'neutral', title: 'Still redirects; hidden from the active list' },
  expired: { label: 'Expired', tone: 'amber', title: 'Past its expiry: visitors go to the expired URL or see an expired page' },
  used_up: { label: 'Click limit reached', tone: 'amber', title: 'Used up its clicks: visitors go to the expired URL or see an expired page' },
};

/** A link's state; quiet shows nothing for a plain active link (in lists). */
export function LinkStatusBadge({
  link,
  quiet,
}: {
  link: Pick<LinkFieldsFragment, 'archived' | 'expiresAt' | 'maxClicks' | 'clicks' | 'passwordProtected'>;
  quiet?: boolean;
}) {
  const s = shown[linkState(link)];
  return (
    <>
      {!(quiet && s.label === 'Active') && (
        <Badge tone={s.tone} dot title={s.title}>
          {s.label}
        </Badge>
      )}
      {link.passwordProtected && (
        <Badge tone="purple" title="Visitors must enter a password">
          <Lock size={11} aria-hidden="true" /> Password
        </Badge>
      )}
    </>
  );
}
