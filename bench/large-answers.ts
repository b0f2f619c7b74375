// `npm run bench:large-answers` (the script on core 1): what large non-streamed answers do to everyone else's requests.
// Small chat requests, one at a time, through a gateway pinned to core 0 (as in `npm run bench`)
// alone, then beside a loop of embeddings batches of 256 float vectors (~8 MB each). The batches
// come from a fixed answer served from memory by this script, so the upstream costs next to no
// CPU and what slows the chats down is the gateway relaying the batches. Alone and beside, twice
// each, alternating; prints the chats' p50 / p90 / p99 / max.
//
//   BENCH_GATEWAY_MAIN=<path to src/start.mjs>   another gateway (e.g. an older commit's export)
//   LARGE_ANSWER_VECTORS                        vectors per batch (default 256)
//   LARGE_ANSWER_CHATS                          chats per measurement (default 400)
import { createServer } from 'node:http';
import { adminCall } from './admin-client.ts';
import { startGateway } from './gateway.ts';
import { stopAll } from './processes.ts';
import { startSimulator } from './servers.ts';
import { percentile } from './results.ts';
import { BODIES, numberEnv } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';

const VECTORS = numberEnv('LARGE_ANSWER_VECTORS', 256);
const CHATS = numberEnv('LARGE_ANSWER_CHATS', 400);
const EMBEDDING_MODEL = 'text-embedding-3-small';

function embeddingsAnswer(vectors: number): Buffer {
  const data = Array.from({ length: vectors }, (_, i) => ({
    object: 'embedding',
    index: i,
    embedding: Array.from({ length: 1536 }, (_, j) => Math.sin(i * 31 + j) * 0.05),
  }));
  return Buffer.from(JSON.stringify({ object: 'list', data, model: EMBEDDING_MODEL, usage: { prompt_tokens: 3 * vectors, total_tokens: 3 * vectors } }));
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}`);
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => percentile(sorted, q).toFixed(2);
  return `p50 ${at(0.5)} ms  p90 ${at(0.9)}  p99 ${at(0.99)}  max ${sorted.at(-1)!.toFixed(2)}`;
}

const answer = embeddingsAnswer(VECTORS);
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    response.end(answer);
  });
});
await new Promise<void>((listening) => upstream.listen(0, '127.0.0.1', listening));
const upstreamPort = (upstream.address() as { port: number }).port;

createTmp();
try {
  const sim = await startSimulator(0);
  const gateway = await startGateway(sim);
  await adminCall(gateway.origin, '/providers', { name: 'fixed-embeddings', type: 'openai', base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: 'sk-fixed', models: [EMBEDDING_MODEL] });
  await new Promise((synced) => setTimeout(synced, 600)); // the provider reaches the routing table on the next sync
  const headers = { authorization: gateway.authorization, 'content-type': 'application/json' };
  const batch = JSON.stringify({ model: EMBEDDING_MODEL, input: Array.from({ length: VECTORS }, (_, i) => `text ${i}`), encoding_format: 'float' });
  await post(`${gateway.origin}/v1/embeddings`, headers, batch);
  const chat = async () => {
    const start = performance.now();
    await post(gateway.chatUrl, headers, BODIES.json);
    return performance.now() - start;
  };
  for (let i = 0; i < 300; i++) await chat(); // warm-up

  process.stdout.write(`chats one at a time through the gateway, alone and beside batches of ${VECTORS} float vectors (${(answer.length / 1e6).toFixed(1)} MB each):\n`);
  for (const beside of [false, true, false, true]) {
    let stopped = false;
    let batches = 0;
    const load = (async () => {
      while (beside && !stopped) {
        await post(`${gateway.origin}/v1/embeddings`, headers, batch);
        batches++;
      }
    })();
    const samples: number[] = [];
    for (let i = 0; i < CHATS; i++) samples.push(await chat());
    stopped = true;
    await load;
    process.stdout.write(`  ${beside ? `beside ${String(batches).padStart(3)} batches` : 'alone             '}  ${summary(samples)}\n`);
  }
} finally {
  await stopAll();
  removeTmp();
  upstream.closeAllConnections();
  upstream.close();
}
