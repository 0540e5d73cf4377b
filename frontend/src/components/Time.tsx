import { formatDateTime, formatRelative } from '../lib/format';

export function Time({ iso, relative }: { iso: string | null | undefined; relative?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {relative ? formatRelative(iso) : formatDateTime(iso)}
    </time>
  );
}
