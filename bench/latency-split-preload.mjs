// Preload for bench/latency-split.ts: times, on the event loop, each POST from node:http's `request`
// event to its answer's `finish`, and each upstream request from undici's `undici:request:create` to
// `undici:request:trailers` (its diagnostics channels). On SIGWINCH it appends both distributions
// to $LATENCY_SPLIT_FILE as one JSON line, and starts over.
import { appendFileSync } from 'node:fs';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const handler = [];
  const upstream = [];
  const created = new WeakMap();
  const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, request, response) {
    if (event === 'request' && request.method === 'POST') {
      const from = process.hrtime.bigint();
      response.once('finish', () => handler.push(ms(from)));
    }
    return emit.apply(this, arguments);
  };
  diagnostics.subscribe('undici:request:create', ({ request }) => created.set(request, process.hrtime.bigint()));
  diagnostics.subscribe('undici:request:trailers', ({ request }) => {
    const from = created.get(request);
    if (from !== undefined) upstream.push(ms(from));
  });
  const take = (samples) => samples.splice(0).sort((a, b) => a - b);
  process.on('SIGWINCH', () => {
    appendFileSync(process.env.LATENCY_SPLIT_FILE ?? `/tmp/latency-split-${process.pid}.jsonl`, `${JSON.stringify({ handler: take(handler), upstream: take(upstream) })}\n`);
  });
}
