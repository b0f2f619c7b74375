// What one hop between the two cores costs on this machine, with no gateway in it: a byte sent
// from a Node process on the load core to a Node process on the gateway's core and back, over a
// pipe, back to back and after the gateway's core sat idle (as it does for 50 ms while the
// simulator "thinks"). On a VM an idle vCPU is halted, and waking it goes through the host: the
// difference between the two is the price every relay pays per idle hop, whatever its code.
//
//   taskset -c 1 node bench/wakeup-probe.ts '{"echoCore":"0","gapsMs":[0,50],"rounds":200}'
// prints JSON: for each gap, the round trip's p50 / p99 in ms.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, type WakeUpResult } from './results.ts';

const WARMUP_ROUNDS = 50;

if (process.argv[2] === 'echo') {
  process.stdin.on('data', (chunk: Buffer) => process.stdout.write(chunk));
} else {
  const { echoCore, gapsMs, rounds } = JSON.parse(process.argv[2] ?? '{}') as { echoCore: string; gapsMs: number[]; rounds: number };
  const echo = spawn('taskset', ['-c', echoCore, process.execPath, fileURLToPath(import.meta.url), 'echo'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const roundTrip = async (): Promise<number> => {
    const start = performance.now();
    const answered = once(echo.stdout, 'data');
    echo.stdin.write('x');
    await answered;
    return performance.now() - start;
  };
  const results: WakeUpResult[] = [];
  try {
    for (let i = 0; i < WARMUP_ROUNDS; i++) await roundTrip();
    for (const gapMs of gapsMs) {
      const samples: number[] = [];
      for (let i = 0; i < rounds; i++) {
        if (gapMs > 0) await sleep(gapMs);
        samples.push(await roundTrip());
      }
      samples.sort((a, b) => a - b);
      results.push({ gapMs, rounds, p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99) });
    }
  } finally {
    echo.stdin.end();
  }
  await once(echo, 'exit');
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
