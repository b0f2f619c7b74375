// The companion benchmarks that follow the HTTP cases on the same code: the translated path
// (bench/translated.ts) and the realtime WebSocket relay (bench/realtime.ts), each in its own
// process with its own settings.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { track } from './processes.ts';
import { BENCH, durationS, quick, ROOT } from './settings.ts';
import { gatewayMain, tmp } from './workspace.ts';

interface Companion {
  name: string;
  script: string;
  /** environment naming the gateway entry point and the JSON output file */
  mainEnv: string;
  jsonEnv: string;
  /** settings for a quick run */
  quickEnv: Record<string, string>;
  /** where its stdout's table begins */
  tableFrom: string;
}

export const COMPANIONS: Companion[] = [
  {
    name: 'translated path (bench/translated.ts; docs/benchmarks-translated.md)',
    script: 'translated.ts',
    mainEnv: 'BENCH_TRANSLATED_GATEWAY_MAIN',
    jsonEnv: 'BENCH_OUT',
    quickEnv: { BENCH_CONNECTIONS: '1', BENCH_QUIET_WAIT: '5' },
    tableFrom: 'relays alone',
  },
  {
    name: 'realtime WebSocket relay (bench/realtime.ts; docs/benchmarks-realtime.md)',
    script: 'realtime.ts',
    mainEnv: 'BENCH_RT_GATEWAY_MAIN',
    jsonEnv: 'BENCH_RT_JSON',
    quickEnv: { BENCH_RT_ROUNDS: '50', BENCH_RT_TURNS: '2', BENCH_RT_REPEATS: '1', BENCH_RT_MEM_SESSIONS: '100', BENCH_RT_QUIET_WAIT: '5' },
    tableFrom: '\n| sessions',
  },
];

export interface CompanionOutcome {
  name: string;
  /** its table as it printed it */
  table: string;
  /** its JSON output, as it wrote it */
  results: unknown;
}

/**
 * A companion benchmark in its own process (its own simulators and gateway, same core layout),
 * on the same code as the HTTP cases. Its progress goes to stderr, its table into this report
 * and its figures into latest.json.
 */
export async function runCompanion(companion: Companion): Promise<CompanionOutcome> {
  process.stderr.write(`bench: ${companion.name}…\n`);
  const json = join(tmp, `${companion.script}.json`);
  // the HTTP cases' connection counts do not apply to the companions (their own defaults do)
  const { BENCH_CONNECTIONS: _connections, ...inherited } = process.env;
  const child = track(
    spawn(process.execPath, [join(BENCH, companion.script)], {
      cwd: ROOT,
      env: { ...(quick ? companion.quickEnv : {}), ...inherited, BENCH_DURATION: String(durationS), [companion.mainEnv]: gatewayMain, [companion.jsonEnv]: json },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    out += text;
    process.stderr.write(text);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${companion.name} failed (exit ${code}); run \`node bench/${companion.script}\` alone to see why`);
  return { name: companion.name, table: out.slice(Math.max(0, out.indexOf(companion.tableFrom))), results: JSON.parse(readFileSync(json, 'utf8')) };
}
