// What the tokenizer thread adds to a gateway's RSS (issue 21, docs/benchmarks.md "Memory"): a fresh
// gateway as the bench starts it (core 0, the server bundle, SQLite), its RSS 2 s
// after the two check requests, then one client that leaves mid-request as the warm-up's does (its prompt is the
// gateway's first local count: it starts the thread and builds its o200k tables), and its RSS 3 s
// later; TOKEN_RSS_ROUNDS fresh gateways in turn (default 3). `main` as node-options-ab takes it:
// TOKEN_RSS_MAIN, an entry point other than the bench's (an older commit's export).
//
//   node bench/tokenizer-rss.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from './gateway.ts';
import { statusMb } from './machine.ts';
import { stop } from './processes.ts';
import { startSimulator } from './servers.ts';
import { numberEnv } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { leaveMidRequest } from './wrk.ts';

const rounds = numberEnv('TOKEN_RSS_ROUNDS', 3);
const main = process.env.TOKEN_RSS_MAIN;

createTmp();
const sim = await startSimulator(0);
try {
  for (let round = 0; round < rounds; round++) {
    const gateway = await startGateway(sim, {}, true, main ? { main } : {});
    try {
      await sleep(2000);
      const idle = statusMb(gateway.pid, 'VmRSS');
      await leaveMidRequest(gateway.chatUrl, gateway.authorization);
      await sleep(3000);
      const after = statusMb(gateway.pid, 'VmRSS');
      console.log(`round ${round + 1}: idle ${idle.toFixed(1)} MB, 3 s after a client left ${after.toFixed(1)} MB (+${(after - idle).toFixed(1)})`);
    } finally {
      await stop(gateway.child);
    }
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
