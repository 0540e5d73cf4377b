import { Smartphone } from 'lucide-react';
import { useEffect, useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { InstancesDocument, type InstanceFieldsFragment } from '../../graphql/generated';
import styles from './Messaging.module.css';

/** The instance select; value '' (an instance not found) asks to choose one. */
function Picker({ list, value, onChange }: { list: readonly InstanceFieldsFragment[]; value: string; onChange: (id: string) => void }) {
  const id = useId();
  return (
    <div className={styles.picker}>
      <label htmlFor={id}>Instance</label>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value)}>
        {!value && (
          <option value="" disabled>
            Choose an instance
          </option>
        )}
        {list.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name}
            {i.address ? ` (${i.address})` : ''} — {i.status}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The instance a per-instance page works on, kept in the URL (?instance=inst_…) so that links
 * and reloads keep it; the newest instance when none is chosen. An instance that is not (or no
 * longer) there is said so, with the list to choose from, rather than another one shown in its
 * place. Renders the picker and, once an instance is known, children with it.
 */
export function WithInstance({ children, what }: { children: (instance: InstanceFieldsFragment) => React.ReactNode; what: string }) {
  const [params, setParams] = useSearchParams();
  const [result, refetch] = useQuery({ query: InstancesDocument, variables: { first: 100 } });
  const list = result.data?.instances.nodes ?? [];
  const chosen = params.get('instance');
  const current = chosen ? (list.find((i) => i.id === chosen) ?? null) : (list[0] ?? null);
  const choose = (id: string) => setParams(new URLSearchParams({ instance: id }));

  useEffect(() => {
    if (!chosen && current) {
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
  if (!list.length) {
    return (
      <EmptyState icon={<Smartphone size={20} />} title="No instances yet" action={<Link to="/api/instances">Create an instance</Link>}>
        {what} belong to a channel instance. Create and connect one first.
      </EmptyState>
    );
  }
  if (!current) {
    return (
      <>
        <Picker list={list} value="" onChange={choose} />
        <EmptyState icon={<Smartphone size={20} />} title="Instance not found" action={<Link to="/api/instances">See all instances</Link>}>
          This workspace has no instance <span className="mono">{chosen}</span>; it may have been deleted. Choose one of its instances above.
        </EmptyState>
      </>
    );
  }
  return (
    <>
      <Picker list={list} value={current.id} onChange={choose} />
      {children(current)}
    </>
  );
}
