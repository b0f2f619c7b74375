// How a streamed answer reaches the client's socket, system call by system call: events are written
// as they come, and once the upstream has sent all it will, what is left goes out with the end in
// one write (a stream that came whole is one write, beside other calls or alone — alone, its charge
// is logged at once rather than at the end of the turn; one that came paced is written as it came,
// its end with the last events).
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';

let tg: TestGateway;
let paced: SimProvider;

before(async () => {
  // the default simulator writes a whole stream at once; the paced one an event every 20 ms
  tg = await startTestGateway({ models: ['gpt-4o-mini'] });
  paced = await addSimProvider(tg, { name: 'paced', models: ['gpt-4o'], simulator: { chunkDelayMs: 20, streamChunks: 5 } });
});
after(async () => {
  await tg.close();
  await paced.close();
});

/** What reached the socket of an answer to this customer's key: one entry per system call (a write or a writev). */
async function watchAnswers(customer: Customer, run: () => Promise<void>): Promise<string[]> {
  const writes: string[] = [];
  const { _write, _writev } = Socket.prototype as unknown as SocketWrites;
  const ours = (socket: Socket) => (socket as unknown as { _httpMessage?: ServerResponse })._httpMessage?.req?.headers.authorization === `Bearer ${customer.key}`;
  const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
  const patched = Socket.prototype as unknown as SocketWrites;
  patched._write = function (this: Socket, chunk, encoding, callback) {
    if (ours(this)) writes.push(text(chunk));
    return _write.call(this, chunk, encoding, callback);
  };
  patched._writev = function (this: Socket, chunks, callback) {
    if (ours(this)) writes.push(chunks.map(({ chunk }) => text(chunk)).join(''));
    return _writev.call(this, chunks, callback);
  };
  try {
    await run();
  } finally {
    patched._write = _write;
    patched._writev = _writev;
  }
  return writes;
}

interface SocketWrites {
  _write(chunk: unknown, encoding: string, callback: (error?: Error | null) => void): void;
  _writev(chunks: { chunk: unknown; encoding: string }[], callback: (error?: Error | null) => void): void;
}

async function streamed(customer: Customer, model: string): Promise<{ text: string; cost: unknown; chunks: number }> {
  const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }], stream: true, stream_options: { include_usage: true } });
  let text = '';
  let cost: unknown;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) cost = (chunk.usage as unknown as { cost?: unknown }).cost;
  }
  return { text, cost, chunks };
}

/** Runs `run` while another customer's call waits on the upstream with its reservation open. */
async function besideAnotherCall(run: () => Promise<void>): Promise<void> {
  const other = await tg.customer(1);
  const client = new OpenAI({ apiKey: other.key, baseURL: tg.baseURL, maxRetries: 0 });
  const leave = new AbortController();
  let ended = false;
  const waiting = client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: '[[sim:slow=10000]] Take your time.' }] }, { signal: leave.signal })
    .catch(() => undefined)
    .finally(() => (ended = true));
  // until its reservation is open (or it ended without one, which the assertion below reports)
  while (tg.gateway.ledger.openReservations === 0 && !ended) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(tg.gateway.ledger.openReservations > 0, 'the other call holds its reservation while it waits upstream');
  try {
    await run();
  } finally {
    leave.abort();
    await waiting;
  }
}

describe('writes of a streamed answer', () => {
  test('beside other calls, a stream the upstream sent whole goes out in one write, headers, usage, cost and [DONE] with it', async () => {
    const customer = await tg.customer(1);
    let answer: Awaited<ReturnType<typeof streamed>> | undefined;
    let writes: string[] = [];
    await besideAnotherCall(async () => {
      writes = await watchAnswers(customer, async () => {
        answer = await streamed(customer, 'gpt-4o-mini');
      });
    });
    assert.ok(answer && answer.text.length > 0 && answer.chunks > 3);
    assert.equal(typeof answer.cost, 'number', 'the usage chunk carries the settled cost');
    assert.equal(writes.length, 1, `one system call for the whole answer (${writes.length})`);
    assert.match(writes[0]!, /^HTTP\/1\.1 200 /, 'the status and headers in the same write');
    assert.match(writes[0]!, /\r\n0\r\n\r\n$/, 'and the chunked answer\'s end');
    const events = writes[0]!.split('\n\n').filter((e) => /data: /.test(e));
    // every chunk the client read, then [DONE]
    assert.equal(events.length, answer.chunks + 1);
    assert.match(events.at(-1)!, /data: \[DONE\]$/);
  });

  test('alone, a stream the upstream sent whole goes out in one write too: its charge is logged at once, no turn to wait for', async () => {
    const customer = await tg.customer(1);
    let answer: Awaited<ReturnType<typeof streamed>> | undefined;
    const writes = await watchAnswers(customer, async () => {
      answer = await streamed(customer, 'gpt-4o-mini');
    });
    assert.ok(answer && answer.text.length > 0 && answer.chunks > 3);
    assert.equal(typeof answer.cost, 'number');
    assert.equal(writes.length, 1, `the events, usage, cost, [DONE] and the end in one system call (${writes.length} writes)`);
    assert.match(writes[0]!, /^HTTP\/1\.1 200 /);
    assert.match(writes[0]!, /"usage":\{[^\n]*"cost":[^\n]*\n\ndata: \[DONE\]\n\n\r\n0\r\n\r\n$/);
  });

  test('a paced stream is written as it comes; its last write carries the usage chunk, [DONE] and the end', async () => {
    const customer = await tg.customer(1);
    let answer: Awaited<ReturnType<typeof streamed>> | undefined;
    const writes = await watchAnswers(customer, async () => {
      answer = await streamed(customer, 'gpt-4o');
    });
    assert.ok(answer && answer.text.length > 0);
    assert.equal(typeof answer.cost, 'number');
    assert.ok(writes.length >= 3, `events written as they came (${writes.length} writes)`);
    assert.match(writes.at(-1)!, /"usage":\{[^\n]*"cost":[^\n]*\n\n(\r\n[0-9a-f]+\r\n)?data: \[DONE\]\n\n\r\n0\r\n\r\n$/);
  });
});
