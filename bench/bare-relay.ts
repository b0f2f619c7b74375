// The benchmark's reference point: a bare Node relay that only forwards bytes — node:http in,
// one undici keep-alive pool out, no parsing, auth, billing or logging. What the gateway costs
// beyond this is the price of its features, not of Node's HTTP stacks.
//
//   node bench/bare-relay.ts <upstream origin> [port=0] [upstream connections=256]    → prints {"port", "pid"} once listening
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { runRelay } from './relay-lifecycle.ts';

const [upstream, portArg, connectionsArg] = process.argv.slice(2);
if (!upstream) throw new Error('usage: node bench/bare-relay.ts <upstream origin> [port]');
const pool = new Pool(upstream, { connections: Number(connectionsArg ?? 256), pipelining: 1, keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    pool
      .request({
        method: 'POST',
        path: req.url ?? '/',
        headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
        body: Buffer.concat(chunks),
      })
      .then(async (upstreamResponse) => {
        const type = upstreamResponse.headers['content-type'];
        res.writeHead(upstreamResponse.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
        for await (const chunk of upstreamResponse.body) res.write(chunk);
        res.end();
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
});
runRelay(server, pool, Number(portArg ?? 0));
