// `node bench/admission-load.ts`: what prompts built to be expensive to tokenise do to the gateway's
// event loop (issue 17, point 3). In one process (the loop measured is the gateway's own, with
// perf_hooks.monitorEventLoopDelay), while /healthz is probed every 50 ms:
//   A. a key whose account has $0 sends 160 KB without a space to chat, messages and count_tokens
//      (refused: the question is whether the refusal came before the tokenizer);
//   B. a funded key asks count_tokens (answered locally, no upstream) for 40 KB, 160 KB and 1 MB
//      without a space.
// Prints the loop delay p50 / p99 / max and the slowest /healthz answer of each phase (and of an
// idle phase first: the machine's own floor), and each request's time. The simulator is idle throughout (count_tokens is local, refusals go nowhere).
//
//   ADMISSION_LOAD_REPEAT   requests per kind (default 4; the old counter needs seconds for each)
//   ADMISSION_LOAD_SIZES    phase B's sizes in characters (default 40000,160000,1000000; the old
//                           counter needs minutes for 1 MB)
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestGateway } from '../test/helpers/gateway.ts';
import { numberEnv } from './settings.ts';

const REPEAT = numberEnv('ADMISSION_LOAD_REPEAT', 4);
const MODEL = 'gpt-4o-mini';

/** random letters: no two pieces alike, so the tokenizer's cache does not help */
const run = (length: number): string => Array.from(randomBytes(length), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

const tg = await startTestGateway();
const broke = await tg.customer(0);
const funded = await tg.customer(1000);

async function post(path: string, key: string, body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(tg.origin + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

async function phase(name: string, requests: Array<() => Promise<{ status: number; ms: number }>>): Promise<void> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let probing = true;
  let slowestHealth = 0;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      await (await fetch(`${tg.origin}/healthz`)).arrayBuffer();
      slowestHealth = Math.max(slowestHealth, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  loop.enable();
  const results = await Promise.all(requests.map((send) => send()));
  loop.disable();
  probing = false;
  await probe;
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(
    `${name}: loop delay p50 ${ms(loop.percentile(50))} ms, p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms; slowest /healthz ${slowestHealth.toFixed(1)} ms`,
  );
  console.log(`  requests: ${results.map((r) => `${r.status} ${r.ms.toFixed(0)} ms`).join(', ')}`);
}

// the floor: the same probes with no request at all (on a busy machine the loop waits for a core too)
await phase('0. idle, /healthz probes only', [() => new Promise((resolve) => setTimeout(() => resolve({ status: 0, ms: 2000 }), 2000))]);
const RUN_160K = run(160_000);
const messages = [{ role: 'user', content: RUN_160K }];
await phase(
  'A. $0 key, 160 KB without a space to chat, messages, count_tokens',
  Array.from({ length: REPEAT }, () => [
    () => post('/v1/chat/completions', broke.key, { model: MODEL, messages }),
    () => post('/v1/messages', broke.key, { model: MODEL, max_tokens: 16, messages }),
    () => post('/v1/messages/count_tokens', broke.key, { model: MODEL, messages }),
  ]).flat(),
);
const SIZES = (process.env.ADMISSION_LOAD_SIZES ?? '40000,160000,1000000').split(',').map(Number);
for (const length of SIZES) {
  const text = run(length);
  await phase(
    `B. funded key, count_tokens of ${length} characters without a space`,
    Array.from({ length: REPEAT }, () => () => post('/v1/messages/count_tokens', funded.key, { model: MODEL, messages: [{ role: 'user', content: text }] })),
  );
}
await tg.close();
