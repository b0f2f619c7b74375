// Preloaded (--import) into a server under bench/first-byte-stages.ts: wall-clock marks of each
// request's way to its first byte, from Node's and undici's diagnostics channels and the first
// write to the client. Requests are sequential there, so the open one is the last started.
// On SIGUSR2 the marks so far go to <tmpdir>/modelgate-first-byte-<pid>.json and are cleared.
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const rows = [];
let open;
const mark = (name) => {
  if (open && open[name] === undefined) open[name] = performance.now();
};
dc.subscribe('http.server.request.start', () => {
  open = { start: performance.now() };
  rows.push(open);
});
// imported as …preload.mjs?split: when the request's body is first read (its 'data' event: routing,
// the onRequest hooks and authentication are done) and Fastify's handler start (subscribing sends
// Fastify down its traced path, ~1 µs)
if (new URL(import.meta.url).searchParams.has('split')) {
  dc.subscribe('tracing:fastify.request.handler:start', () => mark('handler'));
  const emit = IncomingMessage.prototype.emit;
  IncomingMessage.prototype.emit = function (event, ...args) {
    if (event === 'data') mark('body');
    return emit.call(this, event, ...args);
  };
}
dc.subscribe('undici:request:create', () => mark('upstreamCreated'));
dc.subscribe('undici:request:headers', () => mark('upstreamHeaders'));
for (const method of ['write', 'end']) {
  const original = ServerResponse.prototype[method];
  ServerResponse.prototype[method] = function (...args) {
    mark('firstWrite');
    if (method === 'end') mark('end');
    return original.apply(this, args);
  };
}
process.on('SIGUSR2', () => writeFileSync(join(tmpdir(), `modelgate-first-byte-${process.pid}.json`), JSON.stringify(rows.splice(0))));
