// The upstream client's keep-alive race (found by the fuzz suite as 502 upstream_network on valid
// requests): an upstream that closes a kept-alive connection just as a request goes out on it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { UpstreamClient, UpstreamTransportError, type UpstreamTarget } from '../../src/pipeline/upstream-client.ts';

let server: Server;
let target: UpstreamTarget;
/** how many requests reached the server, and whether the next one is to be dropped unanswered */
const seen = { requests: 0, dropNext: 0 };

before(async () => {
  server = createServer((req, res) => {
    seen.requests++;
    req.resume();
    if (seen.dropNext > 0) {
      seen.dropNext--;
      // what a keep-alive timeout firing at the wrong moment looks like to the client
      req.socket.destroy();
      return;
    }
    res.end('{"ok":true}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  target = { poolKey: 'p', baseUrl: `http://127.0.0.1:${port}/v1`, maxConnections: 4, timeouts: { connectMs: 2000, firstByteMs: 2000, idleMs: 2000 } };
});
after(() => server.close());

const post = (client: UpstreamClient, body: string | AsyncIterable<Uint8Array>) =>
  client.send(target, { method: 'POST', path: '/chat', headers: {}, body, signal: new AbortController().signal });

test('a connection closed before any answer: the request is sent once more and answered', async () => {
  const client = new UpstreamClient();
  seen.requests = 0;
  seen.dropNext = 1;
  const response = await post(client, '{"model":"m"}');
  assert.equal(response.status, 200);
  assert.equal(new TextDecoder().decode(await response.body.readAll()), '{"ok":true}');
  assert.equal(seen.requests, 2, 'the dropped request and its one repetition');
  await client.close();
});

test('only once: a second close is the failure it is', async () => {
  const client = new UpstreamClient();
  seen.requests = 0;
  seen.dropNext = 2;
  await assert.rejects(post(client, '{"model":"m"}'), (error: unknown) => error instanceof UpstreamTransportError && error.kind === 'network');
  assert.equal(seen.requests, 2);
  seen.dropNext = 0;
  await client.close();
});

test('an iterable body that starts afresh (a multipart upload): sent again whole', async () => {
  const client = new UpstreamClient();
  seen.requests = 0;
  seen.dropNext = 1;
  const upload = {
    async *[Symbol.asyncIterator]() {
      yield new TextEncoder().encode('{"model":');
      yield new TextEncoder().encode('"m"}');
    },
  };
  const response = await post(client, upload);
  assert.equal(response.status, 200);
  assert.equal(seen.requests, 2);
  await response.body.readAll();
  await client.close();
});

test('a body that can be read once (a generator) is not sent again', async () => {
  const client = new UpstreamClient();
  seen.requests = 0;
  seen.dropNext = 1;
  async function* upload() {
    yield new TextEncoder().encode('{"model":"m"}');
  }
  await assert.rejects(post(client, upload()), UpstreamTransportError);
  assert.equal(seen.requests, 1);
  await client.close();
});
