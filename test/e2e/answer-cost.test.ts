// Cost on every answer (contract §4): `usage.cost` in every usage object an answer carries (the
// final usage chunk of a stream, the messages dialect's usage), `x-modelgate-cost` on non-streamed
// answers, and the estimated flags when the gateway counted the usage itself. The cost is the
// charge: the usage row's cost_usd and the balance drop, on the fast path and the translated one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

let tg: TestGateway;
let openai: FamilyUpstream;
let anthropic: FamilyUpstream;
const CREDIT = 5;
const START = CREDIT * 1e9;
const OPENAI_MODEL = 'gpt-4o-mini';
const NATIVE = 'claude-sonnet-5';

before(async () => {
  tg = await startTestGateway({ simulator: false });
  openai = await addFamilyProvider(tg, 'openai', { models: [OPENAI_MODEL, 'text-embedding-3-small'] });
  anthropic = await addFamilyProvider(tg, 'anthropic', { models: [NATIVE] });
});
after(async () => {
  await tg.close();
  await openai.close();
  await anthropic.close();
});

const openaiSdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
const anthropicSdk = (c: Customer) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0 });

/** The one charge of the account: the usage row's cost (USD), equal to the balance drop. */
async function charged(c: Customer, estimated = false): Promise<number> {
  const rows = await usageRows(tg, c.accountId);
  assert.equal(rows.length, 1, 'one usage row');
  assert.equal(rows[0].estimated, estimated);
  assert.equal(usdToNanoExact(rows[0].cost_usd), START - tg.balanceNano(c.accountId), 'usage row = balance drop');
  assert.ok(rows[0].cost_usd > 0);
  await tg.assertBillingInvariants(c.accountId);
  return rows[0].cost_usd as number;
}

/** The `data:` payloads of an SSE text, parsed (`[DONE]` left as the string). */
function events(text: string): Array<Record<string, any> | string> {
  return text
    .split('\n\n')
    .map((e) => e.split('\n').find((line) => line.startsWith('data: '))?.slice(6))
    .filter((d): d is string => d !== undefined)
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as Record<string, any>)));
}

async function post(c: Customer, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(tg.origin + path, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { res, text: await res.text() };
}

describe('OpenAI chat', () => {
  test('non-streamed: usage.cost and x-modelgate-cost are the charge', async () => {
    const c = await tg.customer(CREDIT);
    const { data, response } = await openaiSdk(c).chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Hello' }] }).withResponse();
    const cost = await charged(c);
    assert.equal((data.usage as unknown as { cost: number }).cost, cost);
    assert.equal(Number(response.headers.get('x-modelgate-cost')), cost);
    assert.equal(response.headers.get('x-modelgate-cost-estimated'), null);
    assert.equal('cost_estimated' in data.usage!, false);
  });

  test('streamed with include_usage: the final usage chunk carries usage.cost; without it, no usage anywhere', async () => {
    const c = await tg.customer(CREDIT);
    const stream = await openaiSdk(c).chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal((last.usage as unknown as { cost: number }).cost, await charged(c));
    assert.equal(chunks.filter((k) => k.usage).length, 1);

    const d = await tg.customer(CREDIT);
    const { res, text } = await post(d, '/v1/chat/completions', { model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    assert.equal(res.headers.get('x-modelgate-cost'), null, 'a stream has no cost header');
    assert.equal(text.includes('"cost"'), false);
    await charged(d);
  });

  test('estimated: the upstream reported no usage', async () => {
    const c = await tg.customer(CREDIT);
    const { data, response } = await openaiSdk(c).chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Hello [[sim:no-usage]]' }] }).withResponse();
    const cost = await charged(c, true);
    assert.equal(Number(response.headers.get('x-modelgate-cost')), cost);
    assert.equal(response.headers.get('x-modelgate-cost-estimated'), 'true');
    assert.equal(data.usage, undefined, 'no usage object to carry it');
  });

  test('estimated, streamed with include_usage: the gateway writes the usage chunk with its count, cost_estimated', async () => {
    const c = await tg.customer(CREDIT);
    const { text } = await post(c, '/v1/chat/completions', { model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Hello [[sim:no-usage]]' }], stream: true, stream_options: { include_usage: true } });
    const all = events(text);
    assert.equal(all.at(-1), '[DONE]');
    const last = all.at(-2) as Record<string, any>;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage.cost, await charged(c, true));
    assert.equal(last.usage.cost_estimated, true);
    const [row] = await usageRows(tg, c.accountId);
    assert.equal(last.usage.prompt_tokens, row.prompt_tokens);
    assert.equal(last.usage.completion_tokens, row.completion_tokens);
  });
});

describe('messages', () => {
  for (const [label, model] of [
    ['native (pass-through)', NATIVE],
    ['bridged to the OpenAI family', OPENAI_MODEL],
  ] as const) {
    test(`${label}: usage.cost in the answer and in the stream's message_delta`, async () => {
      const c = await tg.customer(CREDIT);
      const { data, response } = await anthropicSdk(c).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).withResponse();
      const cost = await charged(c);
      assert.equal((data.usage as unknown as { cost: number }).cost, cost);
      assert.equal(Number(response.headers.get('x-modelgate-cost')), cost);

      const d = await tg.customer(CREDIT);
      const { text } = await post(d, '/v1/messages', { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }, { 'anthropic-version': '2023-06-01' });
      const all = events(text) as Array<Record<string, any>>;
      const delta = all.filter((e) => e.type === 'message_delta');
      assert.equal(delta.length, 1);
      assert.equal(delta[0]!.usage.cost, await charged(d));
      assert.equal(delta[0]!.usage.cost_estimated, undefined);
      assert.equal(all.at(-1)!.type, 'message_stop', 'message_stop still ends the stream');
    });
  }

  test('bridged, estimated: the stream says cost_estimated', async () => {
    const c = await tg.customer(CREDIT);
    const { text } = await post(c, '/v1/messages', { model: OPENAI_MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello [[sim:no-usage]]' }] }, { 'anthropic-version': '2023-06-01' });
    const delta = (events(text) as Array<Record<string, any>>).find((e) => e.type === 'message_delta')!;
    assert.equal(delta.usage.cost, await charged(c, true));
    assert.equal(delta.usage.cost_estimated, true);
    const [row] = await usageRows(tg, c.accountId);
    assert.equal(delta.usage.output_tokens, row.completion_tokens, 'the counted usage, not zeros');
    assert.equal(delta.usage.input_tokens, row.prompt_tokens);
  });
});

test('the fast path and the translated path give the same cost for the same usage', async () => {
  const c = await tg.customer(CREDIT);
  const fast = await openaiSdk(c).chat.completions.create({ model: OPENAI_MODEL, messages: [{ role: 'user', content: 'Same words' }] });
  const d = await tg.customer(CREDIT);
  const translated = await anthropicSdk(d).messages.create({ model: OPENAI_MODEL, max_tokens: 16_384, messages: [{ role: 'user', content: 'Same words' }] });
  assert.equal(translated.usage.input_tokens, fast.usage!.prompt_tokens);
  assert.equal(translated.usage.output_tokens, fast.usage!.completion_tokens);
  assert.equal((translated.usage as unknown as { cost: number }).cost, (fast.usage as unknown as { cost: number }).cost);
});

test('embeddings: usage.cost and the header', async () => {
  const c = await tg.customer(CREDIT);
  const { data, response } = await openaiSdk(c).embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'], encoding_format: 'float' }).withResponse();
  const cost = await charged(c);
  assert.equal((data.usage as unknown as { cost: number }).cost, cost);
  assert.equal(Number(response.headers.get('x-modelgate-cost')), cost);
  assert.equal(data.data.length, 2);
});
