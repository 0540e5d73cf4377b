import { Compass, Construction } from 'lucide-react';
import { useEffect } from 'react';
import { useParams } from 'react-router';
import { ButtonLink } from '../../components/Button';
import { Card } from '../../components/Card';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState } from '../../components/States';
import { plannedSurfaces } from '../../layout/nav';

/** A surface from DESIGN.md whose console page is not built yet; says so plainly. */
export function NotBuiltPage() {
  const { surface = '' } = useParams();
  const info = plannedSurfaces[surface];
  if (!info) return <NotFoundPage />;
  const Icon = info.icon;
  return (
    <>
      <PageHeader title={info.title} description={info.description} />
      <Card>
        <EmptyState
          icon={<Icon size={20} />}
          title={`The ${info.title.toLowerCase()} page is not built yet`}
          action={
            <ButtonLink to="/api/reference" variant="secondary">
              Open the API reference
            </ButtonLink>
          }
        >
          This part of the console is not built yet. When the {info.title.toLowerCase()} API ships it will be listed
          under <code>{info.api}</code> in the API reference.
        </EmptyState>
      </Card>
    </>
  );
}

export function NotFoundPage({ standalone }: { standalone?: boolean }) {
  useEffect(() => {
    if (standalone) document.title = 'Page not found · Switchboard';
  }, [standalone]);
  const body = (
    <EmptyState
      icon={standalone ? <Compass size={20} /> : <Construction size={20} />}
      title="Page not found"
      action={
        <ButtonLink to="/api" variant="primary">
          Go to the console
        </ButtonLink>
      }
    >
      There is nothing at this address.
    </EmptyState>
  );
  if (standalone) {
    return (
      <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }}>
        <div>
          <h1 className="visually-hidden">Page not found</h1>
          {body}
        </div>
      </main>
    );
  }
  return (
    <>
      <PageHeader title="Page not found" />
      <Card>{body}</Card>
    </>
  );
}
