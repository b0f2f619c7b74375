import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../i18n/index.ts';

export interface ChartSeries {
  label: string;
  values: number[];
}

interface Props {
  /** bucket starts, epoch ms */
  x: number[];
  series: ChartSeries[];
  /** bars are stacked (each series drawn on the sum of the ones before it) */
  kind: 'bars' | 'line';
  label: string;
  formatY: (value: number) => string;
  formatX: (ms: number) => string;
  /** width of one bucket (an hour or a day), for tick spacing and bar placement */
  bucketMs: number;
  height?: number;
}

const HOUR_TICKS = [1, 2, 3, 6, 12, 24, 48, 168].map((h) => h * 3600);
const DAY_TICKS = [1, 2, 7, 14, 30, 91].map((d) => d * 86_400);

export const PALETTE = ['#4f46e5', '#0891b2', '#16a34a', '#ea580c', '#db2777', '#7c3aed', '#ca8a04', '#475569', '#0d9488', '#dc2626'];

/**
 * A uPlot chart (about 20 KB gzipped). Stacked bars are drawn as cumulative sums, topmost
 * first, while the legend shows each series' own value. A visually hidden table carries the
 * same figures for screen readers.
 */
export function Chart({ x, series, kind, label, formatY, formatX, bucketMs, height = 260 }: Props) {
  const box = useRef<HTMLDivElement>(null);

  const empty = series.length === 0 || series.every((s) => s.values.every((v) => v === 0));
  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    const stacked = kind === 'bars' ? cumulative(series) : series.map((s) => s.values);
    // drawing order: the tallest stack first, so each lower series paints over it
    const order = kind === 'bars' ? series.map((_, i) => series.length - 1 - i) : series.map((_, i) => i);
    const data: uPlot.AlignedData = [x.map((ms) => ms / 1000), ...order.map((i) => stacked[i]!)];
    const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 2 });
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height,
      padding: [12, 12, 0, 4],
      cursor: { points: { show: kind === 'line' }, drag: { x: false, y: false } },
      legend: { show: true, live: true },
      scales: {
        // half a bucket of room either side, so the first and last bars are whole
        x: { time: true, range: () => [(x[0]! - bucketMs / 2) / 1000, (x[x.length - 1]! + bucketMs / 2) / 1000] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        {
          stroke: '#64748b',
          grid: { show: false },
          ticks: { stroke: '#e2e8f0' },
          space: 56,
          // ticks only on bucket boundaries: whole hours or whole days
          incrs: bucketMs >= 86_400_000 ? DAY_TICKS : HOUR_TICKS,
          values: (_u, splits) => splits.map((s) => formatX(s * 1000)),
        },
        { stroke: '#64748b', grid: { stroke: '#eef2f7' }, ticks: { show: false }, size: 70, values: (_u, splits) => splits.map((s) => formatY(s)) },
      ],
      series: [
        { label: '', value: (_u, v) => (v === null ? '' : formatX(v * 1000)) },
        ...order.map((i) => ({
          label: series[i]!.label,
          stroke: PALETTE[i % PALETTE.length],
          fill: kind === 'bars' ? PALETTE[i % PALETTE.length] : `${PALETTE[i % PALETTE.length]}22`,
          width: kind === 'bars' ? 0 : 2,
          points: { show: false },
          ...(kind === 'bars' && { paths: bars }),
          value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) => (idx === null ? '—' : formatY(series[i]!.values[idx] ?? 0)),
        })),
      ],
    };
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [x, series, kind, height, empty, bucketMs]);

  const totals = x.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  return (
    <figure class="chart">
      <figcaption class="sr-only">{label}</figcaption>
      {empty ? (
        <div class="chart-empty" style={{ height: `${height}px` }}>
          {t('common.noData')}
        </div>
      ) : (
        <div ref={box} class="chart-canvas" aria-hidden="true" />
      )}
      <div class="sr-only">
        <table>
          <caption>{label}</caption>
          <tbody>
            {x.map((ms, i) => (
              <tr key={ms}>
                <th scope="row">{formatX(ms)}</th>
                <td>{formatY(totals[i]!)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

function cumulative(series: ChartSeries[]): number[][] {
  const out: number[][] = [];
  series.forEach((s, i) => out.push(s.values.map((v, j) => v + (i > 0 ? out[i - 1]![j]! : 0))));
  return out;
}

/** Turns API points ({bucket, group, value}) into aligned series, biggest group first, the rest folded into "other". */
export function toSeries<P>(points: P[], buckets: number[], bucketOf: (p: P) => number, groupOf: (p: P) => string, valueOf: (p: P) => number, labelOf: (g: string) => string, max = 8): ChartSeries[] {
  const index = new Map(buckets.map((b, i) => [b, i]));
  const byGroup = new Map<string, number[]>();
  for (const p of points) {
    const i = index.get(bucketOf(p));
    if (i === undefined) continue;
    const g = groupOf(p);
    let values = byGroup.get(g);
    if (!values) byGroup.set(g, (values = buckets.map(() => 0)));
    values[i]! += valueOf(p);
  }
  const ranked = [...byGroup.entries()].sort((a, b) => sum(b[1]) - sum(a[1]));
  const head = ranked.slice(0, max).map(([g, values]) => ({ label: labelOf(g), values }));
  const rest = ranked.slice(max);
  if (rest.length > 0) head.push({ label: t('common.other'), values: buckets.map((_, i) => rest.reduce((s, [, v]) => s + v[i]!, 0)) });
  return head;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
