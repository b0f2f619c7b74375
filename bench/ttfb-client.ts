// Time to first body byte of a streamed chat completion, direct to the simulator vs through the
// gateway: sequential requests on one keep-alive connection per target, the two targets
// alternating (which one goes first alternates too), so drift hits both alike.
// Spawned by bench/ttfb.ts (pinned to core 1) with its job as JSON in BENCH_TTFB; prints one
// JSON line: {"direct": [ms…], "gateway": [ms…], "clientCpuUs"} summarised by ttfb.ts.
import { Client } from 'undici';

interface Target {
  name: string;
  /** origin + path */
  url: string;
  authorization: string;
}

interface Job {
  targets: Target[];
  body: string;
  iterations: number;
  warmup: number;
}

const job = JSON.parse(process.env.BENCH_TTFB ?? '') as Job;

const clients = job.targets.map((target) => {
  const url = new URL(target.url);
  return {
    target,
    path: url.pathname,
    // a stream that never ends fails the measurement instead of hanging it
    client: new Client(url.origin, { pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 }),
  };
});

/** One request: milliseconds from the call to the first body chunk; the rest of the body is drained. */
async function once(entry: (typeof clients)[number]): Promise<number> {
  const started = performance.now();
  const response = await entry.client.request({
    method: 'POST',
    path: entry.path,
    headers: { 'content-type': 'application/json', authorization: entry.target.authorization },
    body: job.body,
  });
  let first = -1;
  let text = '';
  for await (const chunk of response.body) {
    if (first < 0) first = performance.now();
    text += (chunk as Buffer).toString('utf8');
  }
  if (response.statusCode !== 200) throw new Error(`${entry.target.name}: HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
  if (!text.includes('data: [DONE]')) throw new Error(`${entry.target.name}: the stream did not end with [DONE]`);
  return first - started;
}

const samples: Record<string, number[]> = Object.fromEntries(job.targets.map((t) => [t.name, []]));
for (let i = 0; i < job.warmup + job.iterations; i++) {
  const order = i % 2 === 0 ? clients : [...clients].reverse();
  for (const entry of order) {
    const ms = await once(entry);
    if (i >= job.warmup) samples[entry.target.name]!.push(ms);
  }
}
await Promise.all(clients.map((c) => c.client.close()));
const cpu = process.cpuUsage(); // the whole process, start-up included
process.stdout.write(`${JSON.stringify({ ...samples, clientCpuUs: cpu.user + cpu.system })}\n`);
