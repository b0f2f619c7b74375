// Slow clients (issue 17): a client that sends its headers or its body slowly, or stops half-way,
// must not hold a connection forever; the limits cover receiving the request only, so a long
// answer (an SSE stream, a realtime session) runs as long as it runs.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { rawSession, realtimeUrl, REALTIME_MODELS, textTurn } from '../helpers/realtime.ts';

const REQUEST_TIMEOUT_MS = 500;
const HEADERS_TIMEOUT_MS = 300;
/** a bound for the test, not a target: today's code never closes these sockets */
const WAIT = { timeout: 15_000 };

let tg: TestGateway;
let customer: Customer;

before(async () => {
  tg = await startTestGateway({
    models: [...DEFAULT_MODELS, ...REALTIME_MODELS],
    // a stream of 10 chunks 150 ms apart: three times the request timeout
    simulator: { chunkDelayMs: 150, streamChunks: 10 },
    env: { MODELGATE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), MODELGATE_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) },
  });
  customer = await tg.customer(5);
});
after(async () => {
  await tg.close();
});

/** A raw connection that writes `text` and then nothing more; resolves with what it got back once the gateway closed it. */
async function stallAfter(text: string): Promise<string> {
  const { port } = new URL(tg.origin);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  if (text !== '') socket.write(text);
  await once(socket, 'close');
  return received;
}

describe('slow clients are disconnected', () => {
  test('a body that stops half-way: closed after the request timeout (408)', WAIT, async () => {
    const head = [
      'POST /v1/chat/completions HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${customer.key}`,
      'Content-Type: application/json',
      'Content-Length: 1000',
      '',
      '',
    ].join('\r\n');
    const answer = await stallAfter(`${head}{"model":"gpt-4o-mini","messages":[`);
    assert.match(answer, /^HTTP\/1\.1 408/);
  });

  test('a connection that never sends a byte: closed after the headers timeout', WAIT, async () => {
    assert.equal(await stallAfter(''), '');
  });

  test('headers that stop half-way: closed after the headers timeout', WAIT, async () => {
    const answer = await stallAfter('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    assert.doesNotMatch(answer, /^HTTP\/1\.1 200/);
  });
});

describe('long answers are not cut', () => {
  test('an SSE stream lasting longer than the request timeout arrives whole', WAIT, async () => {
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    const started = Date.now();
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'a long story' }] });
    let chunks = 0;
    let finish: string | null = null;
    for await (const chunk of stream) {
      chunks++;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.ok(Date.now() - started > REQUEST_TIMEOUT_MS, 'the stream must outlast the request timeout for this test to mean anything');
    assert.equal(finish, 'stop');
    assert.ok(chunks >= 10);
  });

  test('a realtime session outlives the request and headers timeouts', WAIT, async () => {
    const session = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
    await session.opened;
    await session.log.next('session.created');
    // keep the session open while a stream longer than the request timeout runs
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    const started = Date.now();
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'meanwhile' }] });
    for await (const _chunk of stream);
    assert.ok(Date.now() - started > REQUEST_TIMEOUT_MS);
    const done = await textTurn(session, 'still there?');
    assert.equal(done.response.status, 'completed');
    session.ws.close();
    await session.closed;
  });
});

describe('a short socket idle timeout', () => {
  let short: TestGateway;
  before(async () => {
    short = await startTestGateway({
      models: [...DEFAULT_MODELS, ...REALTIME_MODELS],
      simulator: { chunkDelayMs: 100, streamChunks: 10 },
      env: { MODELGATE_SOCKET_IDLE_TIMEOUT_MS: '400' },
    });
  });
  after(async () => {
    await short.close();
  });

  test('closes a socket silent mid-request well before the (default, 30 s) headers timeout', WAIT, async () => {
    const { port } = new URL(short.origin);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await once(socket, 'close');
  });

  test('does not cut a realtime session that stays silent longer (WebSocket sockets have their own idle rules)', WAIT, async () => {
    const c = await short.customer(5);
    const session = rawSession(realtimeUrl(short, 'gpt-realtime'), { headers: { authorization: `Bearer ${c.key}` } });
    await session.opened;
    await session.log.next('session.created');
    // the session says nothing while a 1 s stream (chunks 100 ms apart: never idle) runs
    const client = new OpenAI({ apiKey: c.key, baseURL: short.baseURL, maxRetries: 0 });
    const started = Date.now();
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'meanwhile' }] });
    for await (const _chunk of stream);
    assert.ok(Date.now() - started > 400);
    const done = await textTurn(session, 'still there?');
    assert.equal(done.response.status, 'completed');
    session.ws.close();
    await session.closed;
  });
});
