import type { Metric, Registry } from 'prom-client';

/** One label value's buckets (counts per bound, not yet cumulative), sum and count. */
interface Series {
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A line of the exposition, as prom-client's metrics hand them to the registry. */
interface HistogramValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

interface Options {
  name: string;
  help: string;
  labelName: string;
  buckets: readonly number[];
  registers: readonly Registry[];
}

/**
 * A histogram of one label for the request path, registered in prom-client's registry as a metric
 * of its own (`registerMetric`: a name, a help, a type and `get`): prom-client's Histogram builds
 * a string key of the label set, a closure and a validation on every observe (~0.4 µs, two a
 * request). Here an observe is a map lookup and a count; /metrics shows the same series, in the
 * same form, as prom-client's Histogram would.
 */
export class RequestHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly labelName: string;
  private readonly bounds: readonly number[];
  private readonly series = new Map<string, Series>();

  constructor(options: Options) {
    this.name = options.name;
    this.help = options.help;
    this.labelName = options.labelName;
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** One observation for a label value; a value that is not a finite number is ignored. */
  observe(labelValue: string, value: number): void {
    if (!Number.isFinite(value)) return;
    let series = this.series.get(labelValue);
    if (series === undefined) this.series.set(labelValue, (series = { counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    // the first bound the value does not pass (Prometheus's `le`); past the last, only +Inf counts it
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) series.counts[i]!++;
    series.sum += value;
    series.count++;
  }

  /** What prom-client's Histogram returns: per label value, the cumulative buckets, +Inf, the sum and the count. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramValue[] }> {
    const values: HistogramValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const [labelValue, series] of this.series) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le, [this.labelName]: labelValue }, value: cumulative, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf', [this.labelName]: labelValue }, value: series.count, metricName: bucket },
        { labels: { [this.labelName]: labelValue }, value: series.sum, metricName: `${this.name}_sum` },
        { labels: { [this.labelName]: labelValue }, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
