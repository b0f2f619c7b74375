// How a streamed answer reaches the client's socket: events are written as they come, and once the
// upstream has sent all it will, what is left goes out with the end in one write (a stream that
// came whole is one write; one that came paced is written as it came, its end with the last events).
import assert from 'node:assert/strict';
import { ServerResponse } from 'node:http';
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

interface Calls {
  writes: string[];
  ends: string[];
}

/** The write() and end() calls on the gateway's answers to this customer's key while `run` runs. */
async function watchAnswers(customer: Customer, run: () => Promise<void>): Promise<Calls> {
  const calls: Calls = { writes: [], ends: [] };
  const { write, end } = ServerResponse.prototype;
  const ours = (res: ServerResponse) => res.req?.headers.authorization === `Bearer ${customer.key}`;
  const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '');
  ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (ours(this)) calls.writes.push(text(chunk));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  ServerResponse.prototype.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (ours(this)) calls.ends.push(text(chunk));
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof end;
  try {
    await run();
  } finally {
    ServerResponse.prototype.write = write;
    ServerResponse.prototype.end = end;
  }
  return calls;
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

describe('writes of a streamed answer', () => {
  test('a stream the upstream sent whole goes out in one write, with its usage, cost and [DONE]', async () => {
    const customer = await tg.customer(1);
    let answer: Awaited<ReturnType<typeof streamed>> | undefined;
    const calls = await watchAnswers(customer, async () => {
      answer = await streamed(customer, 'gpt-4o-mini');
    });
    assert.ok(answer && answer.text.length > 0 && answer.chunks > 3);
    assert.equal(typeof answer.cost, 'number', 'the usage chunk carries the settled cost');
    assert.deepEqual(calls.writes, [], 'nothing written before the end');
    assert.equal(calls.ends.length, 1);
    const events = calls.ends[0]!.split('\n\n').filter((e) => e.startsWith('data: '));
    // every chunk the client read, then [DONE], in the one write
    assert.equal(events.length, answer.chunks + 1);
    assert.equal(events.at(-1), 'data: [DONE]');
  });

  test('a paced stream is written as it comes; its end carries the usage chunk and [DONE]', async () => {
    const customer = await tg.customer(1);
    let answer: Awaited<ReturnType<typeof streamed>> | undefined;
    const calls = await watchAnswers(customer, async () => {
      answer = await streamed(customer, 'gpt-4o');
    });
    assert.ok(answer && answer.text.length > 0);
    assert.equal(typeof answer.cost, 'number');
    assert.ok(calls.writes.length >= 3, `events written as they came (${calls.writes.length} writes)`);
    assert.equal(calls.ends.length, 1);
    assert.match(calls.ends[0]!, /"usage":\{[^\n]*"cost":[^\n]*\n\ndata: \[DONE\]\n\n$/);
  });
});
