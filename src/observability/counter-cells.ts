/**
 * A counter's increments kept in plain cells, two label values deep, and handed to the
 * prom-client counter when it is read (its `collect`, on every /metrics): prom-client builds a
 * string key of the label set on every `inc` — four per request, most of the metrics' ~2 % of
 * the gateway's CPU at 64 connections (perf, task-clock). A cell is never removed: there are as
 * many as label sets, which prom-client keeps anyway.
 */
export class CounterCells<A extends string, B extends string | number> {
  private readonly cells = new Map<A, Map<B, { pending: number; added: boolean }>>();

  add(a: A, b: B, amount: number): void {
    let inner = this.cells.get(a);
    if (inner === undefined) this.cells.set(a, (inner = new Map()));
    const cell = inner.get(b);
    if (cell === undefined) inner.set(b, { pending: amount, added: true });
    else {
      cell.pending += amount;
      cell.added = true;
    }
  }

  /** Hands each label pair's amount added since the last drain to `into`, once (an add of 0 too: the series shows). */
  drain(into: (a: A, b: B, amount: number) => void): void {
    for (const [a, inner] of this.cells) {
      for (const [b, cell] of inner) {
        if (!cell.added) continue;
        const amount = cell.pending;
        cell.pending = 0;
        cell.added = false;
        into(a, b, amount);
      }
    }
  }
}
