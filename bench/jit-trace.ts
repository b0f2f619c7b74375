// What V8 still compiles and throws away once the gateway is warm (issue 21: a function that is
// deoptimised and optimised again, request after request, costs JIT time on the event loop and on
// V8's threads). One gateway, warmed up as the bench warms it, then one measured run at 64
// connections with `--trace-opt --trace-deopt`; the optimisations and deoptimisations logged
// during the measured run, by function, the most frequent first.
//
//   node bench/jit-trace.ts     the first of BENCH_LATENCIES (default 0) and BENCH_MODES (default
//                               json); JIT_TOP rows (default 25)
import { readFileSync } from 'node:fs';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { gatewayNodeArgs, latencies, modes, numberEnv } from './settings.ts';
import { codeRoot, createTmp, removeTmp, sourcesEntry } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

for (const flag of ['--trace-opt', '--trace-deopt']) if (!gatewayNodeArgs.includes(flag)) gatewayNodeArgs.push(flag);
const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;
const top = numberEnv('JIT_TOP', 25);

createTmp();
const sim = await startSimulator(latency);
try {
  // the sources: functions named by file
  const gateway = await startGateway(sim, {}, true, { main: sourcesEntry(codeRoot) });
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    const logPath = gateway.logPath;
    const from = readFileSync(logPath, 'utf8').length;
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
    const text = readFileSync(logPath, 'utf8').slice(from);
    const requests = run.result.requests;
    console.log(`${latency} ms upstream, ${mode}, 64 connections: ${requests} requests, ${(run.gatewayUs / requests).toFixed(0)} µs of CPU per request`);
    const optimised = new Map<string, number>();
    const deoptimised = new Map<string, number>();
    for (const line of text.split('\n')) {
      // [completed compiling 0x… <JSFunction name (sfi = …)> (target TURBOFAN) …] / [bailout (kind: deopt-eager): begin. deoptimizing 0x… <JSFunction name (sfi = …)>, … reason: …]
      const fn = /<JSFunction (\S*)/.exec(line)?.[1] ?? '?';
      if (line.startsWith('[completed compiling')) optimised.set(`${fn} ${/\(target (\w+)\)/.exec(line)?.[1] ?? ''}`, (optimised.get(`${fn} ${/\(target (\w+)\)/.exec(line)?.[1] ?? ''}`) ?? 0) + 1);
      else if (line.startsWith('[bailout')) {
        const reason = /reason: ([^\]]*)/.exec(line)?.[1]?.trim() ?? '?';
        const key = `${fn} (${/kind: ([\w-]+)/.exec(line)?.[1] ?? '?'}: ${reason})`;
        deoptimised.set(key, (deoptimised.get(key) ?? 0) + 1);
      }
    }
    const table = (title: string, map: Map<string, number>) => {
      const total = [...map.values()].reduce((a, b) => a + b, 0);
      console.log(`\n| ${title} (${total} in all) | times |\n|---|--:|`);
      for (const [name, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${name} | ${n} |`);
    };
    table('optimised during the run', optimised);
    table('deoptimised during the run', deoptimised);
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
