import { Smartphone } from 'lucide-react';
import { useEffect, useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { InstancesDocument, type InstanceFieldsFragment } from '../../graphql/generated';
import styles from './Messaging.module.css';

/**
 * The instance a per-instance page works on, kept in the URL (?instance=inst_…) so that links
 * and reloads keep it; the newest instance when none is chosen. Renders the picker and, once
 * an instance is known, children with it.
 */
export function WithInstance({ children, what }: { children: (instance: InstanceFieldsFragment) => React.ReactNode; what: string }) {
  const [params, setParams] = useSearchParams();
  const [result, refetch] = useQuery({ query: InstancesDocument, variables: { first: 100 } });
  const id = useId();
  const list = result.data?.instances.nodes ?? [];
  const chosen = params.get('instance');
  const current = list.find((i) => i.id === chosen) ?? list[0] ?? null;

  useEffect(() => {
    if (current && current.id !== chosen) {
      setParams(
        (p) => {
          const next = new URLSearchParams(p);
          next.set('instance', current.id);
          return next;
        },
        { replace: true },
      );
    }
  }, [current, chosen, setParams]);

  if (result.error && !result.data) {
    return <ErrorState error={result.error} title="Could not load instances" onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  }
  if (!result.data) return <Loading label="Loading instances…" rows={3} />;
  if (!current) {
    return (
      <EmptyState icon={<Smartphone size={20} />} title="No instances yet" action={<Link to="/api/instances">Create an instance</Link>}>
        {what} belong to a channel instance. Create and connect one first.
      </EmptyState>
    );
  }
  return (
    <>
      <div className={styles.picker}>
        <label htmlFor={id}>Instance</label>
        <select
          id={id}
          className="select"
          value={current.id}
          onChange={(e) => setParams(new URLSearchParams({ instance: e.target.value }))}
        >
          {list.map((i) => (
            <option key={i.id} value={i.id}>
              {i.name}
              {i.address ? ` (${i.address})` : ''} — {i.status}
            </option>
          ))}
        </select>
      </div>
      {children(current)}
    </>
  );
}
