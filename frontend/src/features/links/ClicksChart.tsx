import { bucketLabel, clicksLabel } from './text';
import styles from './Links.module.css';

export interface Bucket {
  /** The instant (UTC): unique, even when a DST change repeats an hour. */
  start: string;
  /** The same instant in the stats' time zone, which the labels read. */
  localStart: string;
  clicks: number;
}

const height = 120;
const barWidth = 10;
const gap = 2;

/**
 * Clicks per interval as bars, in plain SVG. Screen readers get one sentence (the total and
 * the busiest interval); each bar has a tooltip.
 */
export function ClicksChart({
  buckets,
  interval,
  period,
  timezone,
}: {
  buckets: Bucket[];
  interval: 'DAY' | 'HOUR';
  period: string;
  /** The time zone whose days or hours the buckets are (named under the chart). */
  timezone: string;
}) {
  const total = buckets.reduce((n, b) => n + b.clicks, 0);
  const max = Math.max(1, ...buckets.map((b) => b.clicks));
  const busiest = buckets.reduce<Bucket | null>((best, b) => (b.clicks > (best?.clicks ?? 0) ? b : best), null);
  const per = interval === 'DAY' ? 'day' : 'hour';
  const summary =
    `Clicks per ${per}, ${period}: ${clicksLabel(total)}` +
    (busiest ? `, most on ${bucketLabel(busiest.localStart, interval)} (${clicksLabel(busiest.clicks)}).` : '.');
  const width = Math.max(1, buckets.length * (barWidth + gap) - gap);
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  return (
    <figure className={styles.chart}>
      <div className={styles.chartArea}>
        <div className={styles.chartMax} aria-hidden="true">
          {max}
        </div>
        <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={summary} data-testid="clicks-chart">
          <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} className={styles.axis} />
          {buckets.map((b, i) => {
            const h = b.clicks ? Math.max(2, (b.clicks / max) * (height - 4)) : 0;
            return (
              <rect key={b.start} x={i * (barWidth + gap)} y={height - h} width={barWidth} height={h} rx={1.5} className={styles.bar}>
                <title>{`${bucketLabel(b.localStart, interval)}: ${clicksLabel(b.clicks)}`}</title>
              </rect>
            );
          })}
        </svg>
      </div>
      {first && last && (
        <figcaption className={styles.chartLabels} aria-hidden="true">
          <span>{bucketLabel(first.localStart, interval)}</span>
          <span data-testid="chart-timezone">{timezone.replace(/_/g, ' ')}</span>
          <span>{bucketLabel(last.localStart, interval)}</span>
        </figcaption>
      )}
    </figure>
  );
}
