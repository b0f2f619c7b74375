// Legacy completions, embeddings and the model list end to end with the official client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { lastUpstreamBody, raw, sdk, sdkError, tokenCost, upstreamBodies } from './support.ts';

const COMPLETIONS = '/v1/completions';
const EMBEDDINGS = '/v1/embeddings';
const USD = 1_000_000_000;
// default list prices in nano-dollars per token
const INSTRUCT = { input: 1500, output: 2000 };
const EMBED_SMALL = 20;

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

const spentBy = (accountId: string) => USD - tg.balanceNano(accountId);

test('completions.create: plain and streamed give the same text; usage chunk only when asked; exact charges', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const request = { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 40 };

  const plain = await client.completions.create(request);
  assert.equal(plain.object, 'text_completion');
  assert.equal(plain.model, 'gpt-3.5-turbo-instruct');
  const text = plain.choices[0]!.text;
  assert.match(text, /^ Echo: Say hi \|/);
  assert.deepEqual(lastUpstreamBody(tg, COMPLETIONS), request);
  const usage = plain.usage!;
  const cost = tokenCost(usage.prompt_tokens, usage.completion_tokens, INSTRUCT.input, INSTRUCT.output);
  assert.equal(spentBy(customer.accountId), cost);

  const chunks: OpenAI.Completion[] = [];
  for await (const chunk of await client.completions.create({ ...request, stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
  assert.equal(chunks.map((c) => c.choices[0]?.text ?? '').join(''), text);
  assert.ok(chunks.length > 2, 'the text arrived in pieces');
  assert.deepEqual(chunks.at(-1)!.choices, []);
  assert.deepEqual(chunks.at(-1)!.usage, usage);
  assert.equal(spentBy(customer.accountId), 2 * cost);

  const quiet: OpenAI.Completion[] = [];
  for await (const chunk of await client.completions.create({ ...request, stream: true })) quiet.push(chunk);
  assert.equal(quiet.map((c) => c.choices[0]?.text ?? '').join(''), text);
  assert.ok(quiet.every((c) => c.choices.length > 0 && !c.usage), 'no usage chunk without include_usage');
  assert.deepEqual(lastUpstreamBody(tg, COMPLETIONS).stream_options, { include_usage: true }, 'the gateway still asked for usage');
  assert.equal(spentBy(customer.accountId), 3 * cost);
  await tg.assertBillingInvariants(customer.accountId);
});

test('embeddings: float vectors, the SDK default base64 decodes to the same floats, raw base64 is float32 bytes', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const input = ['alpha', 'beta gamma'];

  const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
  assert.equal(floats.object, 'list');
  assert.equal(floats.model, 'text-embedding-3-small');
  assert.deepEqual(floats.data.map((d) => [d.object, d.index, d.embedding.length]), [['embedding', 0, 1536], ['embedding', 1, 1536]]);
  assert.deepEqual(lastUpstreamBody(tg, EMBEDDINGS), { model: 'text-embedding-3-small', input, encoding_format: 'float' });
  const tokens = floats.usage.prompt_tokens;
  assert.equal(floats.usage.total_tokens, tokens);
  assert.equal(spentBy(customer.accountId), tokenCost(tokens, 0, EMBED_SMALL));

  const byDefault = await client.embeddings.create({ model: 'text-embedding-3-small', input });
  assert.equal(lastUpstreamBody(tg, EMBEDDINGS).encoding_format, 'base64', 'the SDK asks for base64 by default');
  assert.deepEqual(byDefault.data.map((d) => d.embedding), floats.data.map((d) => d.embedding));

  const rawBase64 = await raw(tg, 'POST', EMBEDDINGS, { key: customer.key, body: { model: 'text-embedding-3-small', input: 'alpha', encoding_format: 'base64' } });
  assert.equal(rawBase64.status, 200);
  const encoded = rawBase64.json.data[0].embedding;
  assert.equal(typeof encoded, 'string');
  const bytes = Buffer.from(encoded, 'base64');
  assert.equal(bytes.length, 1536 * 4);
  const decoded = Array.from({ length: 1536 }, (_, i) => bytes.readFloatLE(i * 4));
  assert.deepEqual(decoded, floats.data[0]!.embedding);
  await tg.assertBillingInvariants(customer.accountId);
});

test('embeddings: a batch of 512 float vectors (~16 MB) arrives whole and is charged by its usage', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const input = Array.from({ length: 512 }, (_, i) => `text number ${i} to embed`);
  const batch = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
  assert.equal(batch.data.length, 512);
  assert.deepEqual(batch.data.map((d) => d.index), input.map((_, i) => i));
  assert.ok(batch.data.every((d) => d.embedding.length === 1536));
  assert.ok(batch.usage.prompt_tokens >= 512);
  assert.equal(spentBy(customer.accountId), tokenCost(batch.usage.prompt_tokens, 0, EMBED_SMALL));
  // the same vectors as when each text is embedded alone
  for (const i of [0, 511]) {
    const alone = await client.embeddings.create({ model: 'text-embedding-3-small', input: input[i]!, encoding_format: 'float' });
    assert.deepEqual(batch.data[i]!.embedding, alone.data[0]!.embedding);
  }
  await tg.assertBillingInvariants(customer.accountId);
});

test('embeddings: dimensions shortens text-embedding-3 vectors and is refused on ada-002', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const short = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'alpha', dimensions: 256, encoding_format: 'float' });
  const vector = short.data[0]!.embedding;
  assert.equal(vector.length, 256);
  assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5, 'a unit vector');
  assert.equal(lastUpstreamBody(tg, EMBEDDINGS).dimensions, 256);

  const before = upstreamBodies(tg, EMBEDDINGS).length;
  const balance = tg.balanceNano(customer.accountId);
  await sdkError(client.embeddings.create({ model: 'text-embedding-ada-002', input: 'alpha', dimensions: 256 }), {
    cls: BadRequestError,
    status: 400,
    type: 'invalid_request_error',
    param: 'dimensions',
    message: /dimensions/,
  });
  await sdkError(client.embeddings.create({ model: 'text-embedding-3-small', input: 'alpha', dimensions: 1537 }), {
    cls: BadRequestError,
    status: 400,
    type: 'invalid_request_error',
    param: 'dimensions',
  });
  assert.equal(upstreamBodies(tg, EMBEDDINGS).length, before, 'refused requests never reach the upstream');
  assert.equal(tg.balanceNano(customer.accountId), balance, 'and cost nothing');
});

test('embeddings: more than 2048 inputs, an input over 8192 tokens and an empty input are 400s naming the input', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const before = upstreamBodies(tg, EMBEDDINGS).length;
  const model = 'text-embedding-3-small';

  await sdkError(client.embeddings.create({ model, input: Array.from({ length: 2049 }, (_, i) => `item ${i}`) }), {
    cls: BadRequestError,
    status: 400,
    type: 'invalid_request_error',
    param: 'input',
  });
  // exactly 2048 is allowed
  const most = await client.embeddings.create({ model, input: Array.from({ length: 2048 }, (_, i) => `item ${i}`), dimensions: 1, encoding_format: 'float' });
  assert.equal(most.data.length, 2048);

  const long = 'word '.repeat(9000);
  await sdkError(client.embeddings.create({ model, input: ['fine', long] }), {
    cls: BadRequestError,
    status: 400,
    type: 'invalid_request_error',
    param: 'input[1]',
    message: /8192/,
  });
  await sdkError(client.embeddings.create({ model, input: '' }), { cls: BadRequestError, status: 400, type: 'invalid_request_error', param: 'input' });
  await sdkError(client.embeddings.create({ model, input: ['fine', ''] }), { cls: BadRequestError, status: 400, type: 'invalid_request_error', param: 'input[1]' });

  assert.equal(upstreamBodies(tg, EMBEDDINGS).length, before + 1, 'only the valid request went upstream');
  await tg.assertBillingInvariants(customer.accountId);
});

test('models.list shows exactly the served models the key may use; models.retrieve answers for them only', async () => {
  const open = await tg.customer(1);
  const listed = (await sdk(tg, open.key).models.list()).data;
  assert.deepEqual(listed.map((m) => m.id), [...DEFAULT_MODELS].sort());
  for (const model of listed) {
    assert.deepEqual(Object.keys(model).sort(), ['created', 'id', 'object', 'owned_by']);
    assert.equal(model.object, 'model');
    assert.ok(Number.isInteger(model.created) && model.created > 1_600_000_000);
    assert.equal(model.owned_by, 'openai');
  }
  const one = await sdk(tg, open.key).models.retrieve('gpt-4o-mini');
  assert.deepEqual(one, listed.find((m) => m.id === 'gpt-4o-mini'));
  await sdkError(sdk(tg, open.key).models.retrieve('no-such-model'), { cls: NotFoundError, status: 404, type: 'not_found' });

  // an allowlist: gpt-5 is allowed but no provider serves it, so it is not listed either
  const limited = await tg.customer(1, { models: ['gpt-4o-mini', 'text-embedding-3-small', 'gpt-5'] });
  const client = sdk(tg, limited.key);
  assert.deepEqual((await client.models.list()).data.map((m) => m.id), ['gpt-4o-mini', 'text-embedding-3-small']);
  assert.equal((await client.models.retrieve('text-embedding-3-small')).id, 'text-embedding-3-small');
  await sdkError(client.models.retrieve('gpt-4o'), { cls: NotFoundError, status: 404, type: 'not_found' });
  await sdkError(client.models.retrieve('gpt-5'), { cls: NotFoundError, status: 404, type: 'not_found' });

  const upstreamBefore = tg.sim!.requests.length;
  const outside = await sdkError(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }), {
    cls: NotFoundError,
    status: 404,
    type: 'not_found',
    param: 'model',
    code: 'model_not_found',
  });
  assert.match(outside.message, /gpt-4o/);
  await sdkError(client.embeddings.create({ model: 'text-embedding-3-large', input: 'x' }), { cls: NotFoundError, status: 404, type: 'not_found', param: 'model' });
  assert.equal(tg.sim!.requests.length, upstreamBefore, 'nothing outside the allowlist reaches the upstream');
  const allowed = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
  assert.equal(allowed.model, 'gpt-4o-mini');
  assert.equal(tg.balanceNano(limited.accountId) < USD, true);
  await tg.assertBillingInvariants(limited.accountId);
});
