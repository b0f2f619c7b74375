// The bench's report: its tables (gateway against direct, the bare relay, time to first byte) and
// the issue's targets read against them, as printed by `npm run bench`.
import { median, peakAt64, streamsWanted, type MemoryResults } from './memory.ts';
import { errorCount, type CaseResult, type GcTotals, type Mode, type TtfbResult } from './results.ts';

interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/**
 * Issue 21's targets, each read against the bare relay of the same run: CPU per request ≤ 1.3× the
 * relay's saturated (64 connections, 0 ms upstream) and ≤ 1.5× at 64 connections with the 50 ms
 * upstream; added p99 there ≤ the relay's added p99 + 2 ms; added time to first byte ≤ the relay's
 * + 0.3 ms (p50). Memory lines are absolute in the issue, from a machine whose relay idled at 61 MB
 * and peaked at 215 MB; where the issue gives that relay figure, a line is also met on the ratio
 * (idle ≤ 120/61 = 1.97×, peak at 64 connections ≤ 250/215 = 1.16× the relay here).
 */
export function checkTargets(cases: CaseResult[], ttfb: TtfbResult[], memory?: MemoryResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const row of memoryRows(cases, memory)) {
    const ratio = row.gateway / row.relay;
    const byRatio = row.ratioLimit !== undefined && row.note === '' && ratio <= row.ratioLimit;
    const how = row.met ? '' : byRatio ? ` — met on the ratio (≤ ${f(row.ratioLimit!, 2)}×)` : row.ratioLimit !== undefined ? ` — ratio limit ${f(row.ratioLimit, 2)}×` : '';
    checks.push({ target: `${row.name} ≤ ${row.limit}`, measured: `${f(row.gateway, 0)} ${row.unit} (relay ${f(row.relay, 0)} ${row.unit}, ${f(ratio, 2)}×)${row.note}${how}`, met: row.met || byRatio });
  }
  for (const c of cases.filter((c) => c.connections === 64 && (c.upstreamLatencyMs === 0 || c.upstreamLatencyMs === 50))) {
    if (!c.relay) continue;
    const limit = c.upstreamLatencyMs === 0 ? 1.3 : 1.5;
    const ratios = cpuRatios(c);
    const ratio = median(ratios.map((r) => r.ratio));
    const measured =
      ratios.length > 1
        ? `median of ${ratios.length} pairs ${ratio.toFixed(2)}× (${ratios.map((r) => `${r.gateway.toFixed(0)} / ${r.relay.toFixed(0)} µs = ${r.ratio.toFixed(2)}×`).join(', ')})`
        : `${c.gateway.cpuUsPerRequest.toFixed(0)} / ${c.relay.cpuUsPerRequest.toFixed(0)} µs = ${ratio.toFixed(2)}×`;
    checks.push({ target: `CPU ≤ ${limit}× the relay (${modeName(c.mode)}, 64 conn, ${c.upstreamLatencyMs} ms upstream)`, measured, met: ratio <= limit });
  }
  for (const c of cases.filter((c) => c.connections === 64 && c.upstreamLatencyMs === 50)) {
    if (!c.relay) continue;
    const limit = c.relay.addedP99Ms + 2;
    checks.push({ target: `added p99 ≤ the relay's + 2 ms (${modeName(c.mode)}, 64 conn, 50 ms upstream)`, measured: `${signed(c.addedP99Ms)} ms (relay ${signed(c.relay.addedP99Ms)} ms)`, met: c.addedP99Ms <= limit });
  }
  for (const t of ttfb) {
    if (!t.relay) continue;
    checks.push({
      target: `added TTFB ≤ the relay's + 0.3 ms at p50 (${t.upstreamLatencyMs} ms upstream)`,
      measured: `${signed(t.addedP50Ms, 3)} ms (relay ${signed(t.relay.addedP50Ms, 3)} ms)`,
      met: t.addedP50Ms <= t.relay.addedP50Ms + 0.3,
    });
  }
  return checks;
}

/**
 * The gateway's CPU per request against the relay's, pair by pair: each gateway run against the
 * relay run just before it, where the median-p99 runs of the two may come from different pairs,
 * minutes apart on a host whose speed drifts. One ratio when the case was measured once.
 */
function cpuRatios(c: CaseResult): Array<{ gateway: number; relay: number; ratio: number }> {
  const paired = c.pairs.length > 1 && c.relayPairs.length === c.pairs.length;
  const runs = paired ? c.pairs.map((p, i) => ({ gateway: p.cpuUsPerRequest, relay: c.relayPairs[i]!.cpuUsPerRequest })) : [{ gateway: c.gateway.cpuUsPerRequest, relay: c.relay!.cpuUsPerRequest }];
  return runs.map((r) => ({ ...r, ratio: r.gateway / r.relay }));
}

interface MemoryRow {
  name: string;
  unit: string;
  gateway: number;
  relay: number;
  limit: string;
  met: boolean;
  note: string;
  /** the issue's limit as a ratio to its relay, where the issue gave the relay's figure */
  ratioLimit?: number;
}

/** issue 21's memory and start-up figures, the gateway's beside the relay's */
function memoryRows(cases: CaseResult[], memory: MemoryResults | undefined): MemoryRow[] {
  const rows: MemoryRow[] = [];
  const row = (name: string, unit: string, pair: { gateway: number; relay: number }, limit: number, note = '', ratioLimit?: number): void => {
    if (Number.isFinite(pair.gateway)) rows.push({ name, unit, ...pair, limit: `${limit} ${unit}`, met: pair.gateway <= limit && note === '', note, ...(ratioLimit !== undefined && { ratioLimit }) });
  };
  if (memory) {
    row('start-up to ready', 'ms', memory.startupMs, 1000);
    row('idle RSS', 'MB', memory.idleRssMb, 120, '', 120 / 61);
  }
  if (cases.some((c) => c.connections === 64)) row('peak RSS at 64 conn', 'MB', peakAt64(cases), 250, '', 250 / 215);
  if (memory) {
    row('peak RSS at 1,000 conn (streamed, 50 ms upstream)', 'MB', memory.peakRssMb1000, 400);
    const s = memory.streams;
    const short = s.opened.gateway < streamsWanted ? ` — only ${s.opened.gateway} of ${streamsWanted} streams opened (relay ${s.opened.relay})` : '';
    row(`RSS with ${s.requested.toLocaleString('en')} open streams`, 'MB', s.rssMb, 1023, short);
  }
  return rows;
}

export function modeName(mode: Mode): string {
  return mode === 'json' ? 'non-streaming' : 'streaming';
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i < 3 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');
export const signed = (v: number, digits = 2) => (v >= 0 ? '+' : '') + f(v, digits);

function gcCell(gc: GcTotals | undefined): string {
  if (!gc) return 'n/a';
  const mean = gc.minorCount > 0 ? (1000 * gc.minorSeconds) / gc.minorCount : 0;
  return `${gc.minorCount} (${f(mean, 1)} ms, ${gc.minorOver10ms}) · ${gc.majorCount} (${f(1000 * gc.majorSeconds, 1)} ms)`;
}

/** "12%", or "12% (9)" when the host's steal was 9 % of a core of it. */
function loadCell(run: { otherLoadCores: number; stealCores: number }): string {
  const steal = Math.round(100 * run.stealCores);
  return `${f(100 * run.otherLoadCores, 0)}%${steal >= 1 ? ` (${steal})` : ''}`;
}

export function report(cases: CaseResult[], ttfb: TtfbResult[], checks: TargetCheck[], memory?: MemoryResults): string {
  const out: string[] = [];
  const memory_ = memoryRows(cases, memory);
  if (memory_.length > 0) {
    out.push('Memory and start-up (bench/memory.ts), gateway against the bare relay:');
    out.push(table(['figure', 'unit', 'target', 'gateway', 'relay', 'ratio'], memory_.map((r) => [r.name, r.unit, r.limit, f(r.gateway, 0), f(r.relay, 0), `${f(r.gateway / r.relay, 1)}×`])));
    out.push('');
  }
  if (cases.length > 0) {
    out.push(
      table(
        ['upstream', 'mode', 'conn', 'direct req/s', 'gateway req/s', 'direct p50', 'gateway p50', 'added p50', 'direct p99', 'gateway p99', 'added p99', 'gw CPU µs/req', 'gw peak RSS MB', 'gw GC: scavenges (mean, ≥ 10 ms) · major (total)', 'errors', 'other load'],
        cases.map((c) => [
          `${c.upstreamLatencyMs} ms`,
          modeName(c.mode),
          String(c.connections),
          f(c.direct.rps, 0),
          f(c.gateway.rps, 0),
          `${f(c.direct.p50Ms)} ms`,
          `${f(c.gateway.p50Ms)} ms`,
          `${signed(c.addedP50Ms)} ms`,
          `${f(c.direct.p99Ms)} ms`,
          `${f(c.gateway.p99Ms)} ms`,
          `${signed(c.addedP99Ms)} ms`,
          f(c.gateway.cpuUsPerRequest, 0),
          f(c.gateway.peakRssMb, 1),
          gcCell(c.gatewayGc),
          `${errorCount(c.direct)} / ${errorCount(c.gateway)}`,
          `${loadCell(c.direct)} / ${loadCell(c.gateway)}${c.contended ? ' (!)' : ''}`,
        ]),
      ),
    );
    out.push(
      "(errors = non-2xx + socket errors + timeouts, direct / gateway; other load = CPU other processes on the machine used during the run, % of one core, direct / gateway, with the host's steal in brackets when there was any; (!) = disturbed on every attempt)",
    );
    for (const c of cases.filter((c) => c.pairs.length > 1)) {
      const each = c.pairs.map((p) => `${signed(p.addedP50Ms)} / ${signed(p.addedP99Ms)}`).join(', ');
      out.push(`${c.upstreamLatencyMs} ms, ${modeName(c.mode)}, ${c.connections} conn: ${c.pairs.length} direct/gateway pairs, added p50 / p99 in ms: ${each} — the row shows the pair with the median added p99`);
      if (c.relayPairs.length > 1) {
        const relays = c.relayPairs.map((p) => `${signed(p.addedP50Ms)} / ${signed(p.addedP99Ms)}`).join(', ');
        out.push(`  the bare relay in the same pairs: ${relays} — its row shows its median`);
      }
    }
  }
  const withRelay = cases.filter((c) => c.relay);
  if (withRelay.length > 0) {
    out.push('');
    out.push('Reference: a bare Node relay (bench/bare-relay.ts: node:http in, undici out, bytes only) in the gateway\'s place');
    out.push(
      table(
        ['upstream', 'mode', 'conn', 'relay req/s', 'relay p50', 'added p50', 'relay p99', 'added p99', 'relay CPU µs/req', 'gw CPU ÷ relay CPU', 'relay RSS MB', 'errors', 'other load'],
        withRelay.map((c) => {
          const r = c.relay!;
          return [
            `${c.upstreamLatencyMs} ms`,
            modeName(c.mode),
            String(c.connections),
            f(r.rps, 0),
            `${f(r.p50Ms)} ms`,
            `${signed(r.addedP50Ms)} ms`,
            `${f(r.p99Ms)} ms`,
            `${signed(r.addedP99Ms)} ms`,
            f(r.cpuUsPerRequest, 0),
            `${f(c.gateway.cpuUsPerRequest / r.cpuUsPerRequest, 1)}×`,
            f(r.peakRssMb, 1),
            String(errorCount(r)),
            loadCell(r),
          ];
        }),
      ),
    );
  }
  if (ttfb.length > 0) {
    out.push('');
    out.push(
      table(
        ['upstream', 'streams', 'n', 'direct p50', 'gateway p50', 'added p50', 'direct p99', 'gateway p99', 'added p99', 'paired median', 'bare relay added p50 / p99', 'other load'],
        ttfb.map((t) => [
          `${t.upstreamLatencyMs} ms`,
          'TTFB',
          String(t.iterations),
          `${f(t.direct.p50Ms, 3)} ms`,
          `${f(t.gateway.p50Ms, 3)} ms`,
          `${signed(t.addedP50Ms, 3)} ms`,
          `${f(t.direct.p99Ms, 3)} ms`,
          `${f(t.gateway.p99Ms, 3)} ms`,
          `${signed(t.addedP99Ms, 3)} ms`,
          `${signed(t.addedPairedMedianMs, 3)} ms`,
          t.relay ? `${signed(t.relay.addedP50Ms, 3)} / ${signed(t.relay.addedP99Ms, 3)} ms` : 'n/a',
          `${loadCell(t)}${t.contended ? ' (!)' : ''}`,
        ]),
      ),
    );
    for (const t of ttfb.filter((t) => t.roundTrips)) {
      const each = t.roundTrips!.map((r) => `${r.gapMs > 0 ? `after ${r.gapMs} ms idle` : 'back to back'} ${f(r.p50Ms, 3)} / ${f(r.p99Ms, 3)} ms`).join('; ');
      out.push(`${t.upstreamLatencyMs} ms: a pipe round trip between a Node process on each core (bench/wakeup-probe.ts, p50 / p99): ${each}`);
    }
  }
  out.push('');
  out.push('Targets:');
  for (const c of checks) out.push(`  ${c.met ? 'met   ' : 'MISSED'}  ${c.target}: ${c.measured}`);
  return out.join('\n');
}
