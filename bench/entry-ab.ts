// Start-up to ready and idle RSS of two gateway entry points, alternated on the gateway's core
// (bench/memory.ts's procedure: fresh process, /readyz, both request shapes, RSS 2 s later).
//
//   node bench/entry-ab.ts <entry A> <entry B>     AB_ROUNDS (alternated starts of each, 6)
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from './gateway.ts';
import { statusMb } from './machine.ts';
import { stop } from './processes.ts';
import { startSimulator } from './servers.ts';
import { createTmp, removeTmp } from './workspace.ts';

const entries = process.argv.slice(2, 4).map((entry) => resolve(entry));
if (entries.length !== 2) throw new Error('usage: node bench/entry-ab.ts <entry A> <entry B>');
const rounds = Number(process.env.AB_ROUNDS ?? 6);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
createTmp();
const sim = await startSimulator(0);
const figures = entries.map(() => ({ readyMs: [] as number[], idleMb: [] as number[] }));
try {
  for (let round = 0; round < rounds; round++) {
    for (const [i, main] of entries.entries()) {
      const gateway = await startGateway(sim, {}, true, { main });
      figures[i]!.readyMs.push(Math.round(gateway.readyMs));
      await sleep(2000);
      figures[i]!.idleMb.push(statusMb(gateway.pid, 'VmRSS'));
      await stop(gateway.child);
    }
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
for (const [i, entry] of entries.entries()) {
  const { readyMs, idleMb } = figures[i]!;
  console.log(`${entry}: ready ${readyMs.join(' ')} ms (median ${median(readyMs)}); idle RSS ${idleMb.map((mb) => mb.toFixed(0)).join(' ')} MB (median ${median(idleMb).toFixed(1)})`);
}
