// Vendors serve HTTPS, and the gateway's HTTP client (undici) speaks HTTP/2 to an upstream that
// offers it (ALPN): in production most calls go upstream over HTTP/2, many requests sharing one
// connection. The OpenAI simulator over TLS (a throwaway certificate the gateway process trusts
// through NODE_EXTRA_CA_CERTS) answers through the official SDK as it does over HTTP/1.1: plain and
// streamed answers billed exactly, requests in parallel on shared connections, a vendor's GOAWAY
// (streams under way finish, new ones go on a new connection), a request the upstream resets
// before answering failed and never charged, a stream it resets midway never completed, a
// client that leaves charged for what reached it; a multipart upload (a transcription) streamed up
// whole; and a realtime session to the vendor over wss.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import OpenAI, { toFile } from 'openai';
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import { selfSignedCertificate, type SelfSigned } from '../../simulators/_kit/self-signed.ts';
import { startOpenAISimulator, type OpenAISimulator } from '../../simulators/openai/server.ts';
import { addCustomer, addSimProvider, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { rawSession, textTurn } from '../helpers/realtime.ts';

let cert: SelfSigned;
let sim: OpenAISimulator;
let gateway: ChildGateway;
const dir = mkdtempSync(join(tmpdir(), 'modelgate-h2-'));

before(async () => {
  cert = selfSignedCertificate(dir);
  sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', tls: cert, chunkDelayMs: 5 });
  gateway = await startChildGateway({ DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}`, NODE_EXTRA_CA_CERTS: cert.certPath });
  await addSimProvider(gateway, sim.baseUrl, ['gpt-4o-mini', 'gpt-realtime', 'whisper-1']);
});
after(async () => {
  await gateway?.kill9();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
const balanceNano = async (accountId: string) => Math.round((await gateway.admin('GET', `/admin/accounts/${accountId}`)).body.balance_usd * 1e9);
interface UsageRow {
  status: number;
  cost_usd: number;
  prompt_tokens: number;
  completion_tokens: number;
}
/** the account's usage rows once `count` of them are written (the write-behind commits every 250 ms), newest first */
async function usage(accountId: string, count: number): Promise<UsageRow[]> {
  for (let polls = 0; ; polls++) {
    const rows = (await gateway.admin('GET', `/admin/usage?account_id=${accountId}`)).body.data as UsageRow[];
    if (rows.length >= count || polls === 400) return rows;
    await delay(25);
  }
}

/** what the simulator received over HTTP/2: the pseudo-headers node:http2 keeps among the headers */
const overHttp2 = () => sim.requests.filter((r) => r.headers[':scheme'] === 'https' && r.path === '/v1/chat/completions');

test('a plain and a streamed chat go upstream over HTTP/2 and are billed as the answers say', async () => {
  const customer = await addCustomer(gateway, 1);
  const before = overHttp2().length;
  const plain = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
  assert.ok(plain.choices[0]?.message.content);
  assert.ok(plain.usage && plain.usage.prompt_tokens > 0 && plain.usage.completion_tokens > 0);

  const stream = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count to five.' }], stream: true, stream_options: { include_usage: true } });
  let text = '';
  let streamed: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) streamed = chunk.usage;
  }
  assert.ok(text.length > 0);
  assert.ok(streamed && streamed.completion_tokens > 0);
  assert.equal(overHttp2().length - before, 2, 'both requests reached the simulator over HTTP/2');

  // the two answers' costs, as the usage rows record them, are what the balance lost
  const rows = await usage(customer.accountId, 2);
  assert.deepEqual(rows.map((r) => r.status), [200, 200]);
  assert.deepEqual(rows.map((r) => [r.prompt_tokens, r.completion_tokens]).reverse(), [
    [plain.usage.prompt_tokens, plain.usage.completion_tokens],
    [streamed.prompt_tokens, streamed.completion_tokens],
  ]);
  const charged = rows.reduce((sum, r) => sum + Math.round(r.cost_usd * 1e9), 0);
  assert.ok(charged > 0);
  assert.equal(await balanceNano(customer.accountId), 1e9 - charged);
});

test('thirty streams at once share the upstream connections and all complete', async () => {
  const customer = await addCustomer(gateway, 1);
  // a connection whose settings have arrived: until then undici counts it busy after one stream
  await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Open.' }] });
  const before = overHttp2().length;
  const connectionsBefore = sim.connections;
  const texts = await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const stream = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Stream number ${i}.` }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    }),
  );
  assert.ok(texts.every((t) => t.length > 0));
  assert.equal(overHttp2().length - before, 30);
  // undici opens another HTTP/2 connection only past 100 streams on one: over HTTP/1.1 this took 30
  assert.ok(sim.connections - connectionsBefore <= 2, `${sim.connections - connectionsBefore} new connections for 30 streams`);
  const rows = await usage(customer.accountId, 31);
  assert.equal(rows.filter((r) => r.status === 200).length, 31);
});

test('a GOAWAY from the vendor (its load balancer rotating connections): the streams under way finish, the next requests go on a new connection', async () => {
  const customer = await addCustomer(gateway, 1);
  const streamed = async (i: number, onFirstChunk?: () => void) => {
    const stream = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Rotation ${i}.` }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (text === '' && chunk.choices[0]?.delta.content) onFirstChunk?.();
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    return { text, usage };
  };
  // ten streams under way (20 chunks 5 ms apart each), then the GOAWAY once each has its first chunk
  let started = 0;
  const { promise: allStarted, resolve } = Promise.withResolvers<void>();
  const first = Array.from({ length: 10 }, (_, i) => streamed(i, () => ++started === 10 && resolve()));
  await allStarted;
  const connections = sim.connections;
  sim.rotateConnections();
  const later = await Promise.all(Array.from({ length: 10 }, (_, i) => streamed(10 + i)));
  const earlier = await Promise.all(first);
  for (const answer of [...earlier, ...later]) {
    assert.ok(answer.text.length > 0);
    assert.ok(answer.usage && answer.usage.completion_tokens > 0);
  }
  assert.ok(sim.connections > connections, 'the requests after the GOAWAY went on a new connection');
  const rows = await usage(customer.accountId, 20);
  assert.deepEqual(rows.map((r) => r.status), Array(20).fill(200));
});

test('a request the upstream resets before answering fails with a 5xx and costs nothing', async () => {
  const customer = await addCustomer(gateway, 1);
  await assert.rejects(
    client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello [[sim:cut=0]]' }] }),
    (error: unknown) => error instanceof OpenAI.APIError && error.status !== undefined && error.status >= 500,
  );
  assert.equal(await balanceNano(customer.accountId), 1e9);
  assert.ok((await usage(customer.accountId, 1)).every((r) => r.cost_usd === 0));
  // the connection the reset stream shared still serves the next request
  const next = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Again.' }] });
  assert.ok(next.choices[0]?.message.content);
});

test('a stream the upstream resets midway ends with an error event and is not charged', async () => {
  const customer = await addCustomer(gateway, 1);
  const stream = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'A long one [[sim:cut=3]]' }], stream: true });
  let chunks = 0;
  await assert.rejects(async () => {
    for await (const _ of stream) chunks++;
  }, OpenAI.APIError);
  assert.ok(chunks >= 3, 'the chunks sent before the reset were relayed');
  assert.equal(await balanceNano(customer.accountId), 1e9);
  const rows = await usage(customer.accountId, 1);
  assert.deepEqual(rows.map((r) => [r.status, r.cost_usd]), [[502, 0]]);
});

test('a client that leaves mid-stream is charged for its prompt and what reached it', async () => {
  const customer = await addCustomer(gateway, 1);
  // the simulator's stream: 20 chunks 5 ms apart; the client leaves after the first with text (breaking out aborts the request)
  const stream = await client(customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Take your time.' }], stream: true });
  for await (const chunk of stream) if (chunk.choices[0]?.delta.content) break;
  // settled once the gateway saw the client go: a usage row with status 499
  const rows = await usage(customer.accountId, 1);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.status, 499);
  assert.ok(rows[0]!.prompt_tokens > 0);
  assert.equal(await balanceNano(customer.accountId), 1e9 - Math.round(rows[0]!.cost_usd * 1e9));
});

test('a multipart upload (a transcription) goes upstream over HTTP/2 whole and is billed by the seconds the vendor measured in it', async () => {
  const customer = await addCustomer(gateway, 1);
  // 3.2 s of 24-kHz 16-bit mono: ~150 KB, more than one HTTP/2 flow-control window's worth of frames
  const wav = makeAudio('wav', 3.2);
  const result = await client(customer.key).audio.transcriptions.create({ file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }), model: 'whisper-1' });
  assert.match(result.text, /Simulated transcript of speech\.wav/);
  const sent = sim.requests.findLast((r) => r.path === '/v1/audio/transcriptions');
  assert.equal(sent?.headers[':scheme'], 'https', 'the upload reached the simulator over HTTP/2');
  assert.equal((sent?.body as Record<string, unknown>).model, 'whisper-1');
  // the vendor read 3.2 s out of the file it received (a cut-off upload reads shorter, or not at all) and bills 4
  const [row] = await usage(customer.accountId, 1);
  assert.equal(row?.status, 200);
  assert.equal(Math.round((row?.cost_usd ?? 0) * 1e9), 4 * 100_000);
  assert.equal(await balanceNano(customer.accountId), 1e9 - 4 * 100_000);
});

test('a realtime session reaches the vendor over wss (WebSocket over TLS) and its response is billed', async () => {
  const customer = await addCustomer(gateway, 1);
  const session = rawSession(`${gateway.origin.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${customer.key}` } });
  await session.opened;
  const done = await textTurn(session, 'Hello over TLS.');
  assert.ok(done.response.usage && done.response.usage.total_tokens > 0);
  session.ws.close();
  await session.closed;
  const rows = await usage(customer.accountId, 1);
  assert.equal(rows.length, 1);
  assert.ok(rows[0]!.cost_usd > 0);
  assert.equal(await balanceNano(customer.accountId), 1e9 - Math.round(rows[0]!.cost_usd * 1e9));
});
