// Every row of the specification's error table through the real server: status, envelope,
// `param`, the official client's error class, x-request-id, and what is (not) charged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, RateLimitError } from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertErrorBody, MINI, raw, sdk, sdkError, tokenCost } from './support.ts';

const CHAT = '/v1/chat/completions';
const USD = 1_000_000_000;
const base = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

/** A raw request that must fail with exactly this status and envelope; returns the response. */
async function expectError(
  gateway: TestGateway,
  path: string,
  options: Parameters<typeof raw>[3],
  status: number,
  expected: { type: string; param?: string | null; code?: string | null },
) {
  const res = await raw(gateway, 'POST', path, options);
  assert.equal(res.status, status, `${JSON.stringify(options?.body)?.slice(0, 120)} → ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assertErrorBody(res.json, expected);
  assert.ok(res.headers.get('x-request-id'), 'every answer carries x-request-id');
  return res;
}

describe('400 invalid_request_error', () => {
  const invalidChats: Array<[string, Record<string, unknown>, string]> = [
    ['temperature below 0', { temperature: -0.01 }, 'temperature'],
    ['temperature above 2', { temperature: 2.01 }, 'temperature'],
    ['top_p below 0', { top_p: -0.01 }, 'top_p'],
    ['top_p above 1', { top_p: 1.01 }, 'top_p'],
    ['presence_penalty below -2', { presence_penalty: -2.01 }, 'presence_penalty'],
    ['presence_penalty above 2', { presence_penalty: 2.01 }, 'presence_penalty'],
    ['frequency_penalty below -2', { frequency_penalty: -2.01 }, 'frequency_penalty'],
    ['frequency_penalty above 2', { frequency_penalty: 2.01 }, 'frequency_penalty'],
    ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['temperature as a string', { temperature: 'hot' }, 'temperature'],
    ['model as a number', { model: 42 }, 'model'],
    ['messages as a string', { messages: 'Hi' }, 'messages'],
    ['an empty messages array', { messages: [] }, 'messages'],
    ['an unknown role', { messages: [{ role: 'wizard', content: 'Hi' }] }, 'messages[0].role'],
    ['stream as a string', { stream: 'yes' }, 'stream'],
    ['a fractional max_tokens', { max_tokens: 1.5 }, 'max_tokens'],
    ['n of zero', { n: 0 }, 'n'],
    ['stop as a number', { stop: 7 }, 'stop'],
    ['stream_options without stream', { stream_options: { include_usage: true } }, 'stream_options'],
    [
      'a tool message without tool_call_id',
      { messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', content: '{"ok":true}' }] },
      'messages[1].tool_call_id',
    ],
  ];

  test('each chat rule is a 400 naming the field, before anything reaches the upstream or the balance', async () => {
    const customer = await tg.customer(1);
    const upstreamBefore = tg.sim!.requests.length;
    for (const [, overrides, param] of invalidChats) {
      await expectError(tg, CHAT, { key: customer.key, body: { ...base, ...overrides } }, 400, { type: 'invalid_request_error', param });
    }
    const { model: _model, ...noModel } = base;
    const { messages: _messages, ...noMessages } = base;
    await expectError(tg, CHAT, { key: customer.key, body: noModel }, 400, { type: 'invalid_request_error', param: 'model' });
    await expectError(tg, CHAT, { key: customer.key, body: noMessages }, 400, { type: 'invalid_request_error', param: 'messages' });
    assert.equal(tg.sim!.requests.length, upstreamBefore);
    assert.equal(tg.balanceNano(customer.accountId), USD);
  });

  test('the official client raises BadRequestError with type and param', async () => {
    const customer = await tg.customer(1);
    const client = sdk(tg, customer.key);
    await sdkError(client.chat.completions.create({ ...base, temperature: 3 } as never), { cls: BadRequestError, status: 400, type: 'invalid_request_error', param: 'temperature' });
    await sdkError(client.chat.completions.create({ ...base, stop: ['1', '2', '3', '4', '5'] } as never), { cls: BadRequestError, status: 400, type: 'invalid_request_error', param: 'stop' });
    await sdkError(client.embeddings.create({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'binary' } as never), {
      cls: BadRequestError,
      status: 400,
      type: 'invalid_request_error',
      param: 'encoding_format',
    });
    await sdkError(client.embeddings.create({ model: 'text-embedding-3-small' } as never), { cls: BadRequestError, status: 400, type: 'invalid_request_error', param: 'input' });
  });

  test('the range ends themselves are accepted', async () => {
    const customer = await tg.customer(1);
    const client = sdk(tg, customer.key);
    const low = await client.chat.completions.create({ ...base, temperature: 0, top_p: 0, presence_penalty: -2, frequency_penalty: -2, stop: ['w', 'x', 'y', 'z'] } as never);
    const high = await client.chat.completions.create({ ...base, temperature: 2, top_p: 1, presence_penalty: 2, frequency_penalty: 2 } as never);
    for (const reply of [low, high]) assert.equal((reply as { object: string }).object, 'chat.completion');
  });

  test('a body that is not JSON is a 400; a body over MODELGATE_MAX_BODY_BYTES is a 413', async () => {
    const customer = await tg.customer(1);
    await expectError(tg, CHAT, { key: customer.key, body: '{"model": "gpt-4o-mini", "messages": [' }, 400, { type: 'invalid_request_error', param: null });
    const small = await startTestGateway({ env: { MODELGATE_MAX_BODY_BYTES: '2048' }, simulator: false });
    try {
      const smallCustomer = await small.customer(1);
      const big = { ...base, messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
      await expectError(small, CHAT, { key: smallCustomer.key, body: big }, 413, { type: 'invalid_request_error' });
      const error = await sdkError(sdk(small, smallCustomer.key).chat.completions.create(big as never), { cls: APIError, status: 413, type: 'invalid_request_error' });
      assert.equal(error.constructor, APIError, 'the SDK has no 413 class');
    } finally {
      await small.close();
    }
  });

  test('a multipart form sent to a JSON endpoint is a 415 that says to send JSON, and costs nothing', async () => {
    // the upload parser serves only the audio, image and video routes (its hooks used to run on every request)
    const customer = await tg.customer(1);
    const start = tg.balanceNano(customer.accountId);
    const boundary = 'modelgate-test-boundary';
    const form = `--${boundary}\r\ncontent-disposition: form-data; name="model"\r\n\r\ngpt-4o-mini\r\n--${boundary}--\r\n`;
    const res = await expectError(
      tg,
      CHAT,
      { key: customer.key, body: form, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } },
      415,
      { type: 'invalid_request_error', code: 'unsupported_media_type' },
    );
    assert.match(res.json.error.message, /application\/json/);
    assert.equal(tg.balanceNano(customer.accountId), start);
  });
});

describe('401 authentication_error', () => {
  test('a missing key, a malformed header and an unknown key', async () => {
    await expectError(tg, CHAT, { body: base }, 401, { type: 'authentication_error' });
    await expectError(tg, CHAT, { body: base, headers: { authorization: 'Basic dXNlcjpwYXNz' } }, 401, { type: 'authentication_error' });
    await sdkError(sdk(tg, `sk-${'x'.repeat(48)}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), {
      cls: AuthenticationError,
      status: 401,
      type: 'authentication_error',
    });
  });

  test('a disabled key and an expired key are refused, each message saying which', async () => {
    const customer = await tg.customer(1);
    const client = sdk(tg, customer.key);
    const call = () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });

    assert.equal((await tg.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: true })).status, 200);
    await sdkError(call(), { cls: AuthenticationError, status: 401, type: 'authentication_error', message: /disabled/ });
    assert.equal((await tg.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: false })).status, 200);
    assert.equal((await call()).object, 'chat.completion');

    // creating a key that is already expired is refused, so it is made to expire afterwards
    const refused = await tg.admin('POST', `/admin/accounts/${customer.accountId}/keys`, { expires_at: '2001-01-01T00:00:00Z' });
    assert.equal(refused.status, 400);
    assertErrorBody(refused.body, { type: 'invalid_request_error', param: 'expires_at' });
    const patched = await tg.admin('PATCH', `/admin/keys/${customer.keyId}`, { expires_at: '2001-01-01T00:00:00Z' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.status, 'expired');
    await sdkError(call(), { cls: AuthenticationError, status: 401, type: 'authentication_error', message: /expired/ });
    const res = await expectError(tg, CHAT, { key: customer.key, body: base }, 401, { type: 'authentication_error' });
    assert.match(res.json.error.message, /expired/);
  });
});

describe('402 insufficient_quota', () => {
  test('an account with zero balance', async () => {
    const broke = await tg.customer(0);
    const upstreamBefore = tg.sim!.requests.length;
    const error = await sdkError(sdk(tg, broke.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), {
      cls: APIError,
      status: 402,
      type: 'insufficient_quota',
    });
    assert.equal(error.constructor, APIError, 'the SDK has no 402 class');
    await expectError(tg, CHAT, { key: broke.key, body: base }, 402, { type: 'insufficient_quota' });
    assert.equal(tg.sim!.requests.length, upstreamBefore);
  });

  test('a balance that cannot cover max_tokens is refused; the same request with a small max_tokens succeeds', async () => {
    // $0.001 = 1,000,000 nano: 100,000 output tokens at 600 nano cannot be covered, 20 can
    const customer = await tg.customer(0.001);
    const client = sdk(tg, customer.key);
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };
    await sdkError(client.chat.completions.create({ ...request, max_tokens: 100_000 }), { cls: APIError, status: 402, type: 'insufficient_quota', message: /max_tokens/ });
    // without max_tokens the default allowance (4096 tokens) is reserved, which is also too much
    await sdkError(client.chat.completions.create(request), { cls: APIError, status: 402, type: 'insufficient_quota' });
    assert.equal(tg.balanceNano(customer.accountId), 1_000_000);
    const reply = await client.chat.completions.create({ ...request, max_tokens: 20 });
    const usage = reply.usage!;
    assert.ok(usage.completion_tokens <= 20);
    assert.equal(tg.balanceNano(customer.accountId), 1_000_000 - tokenCost(usage.prompt_tokens, usage.completion_tokens, MINI.input, MINI.output));
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('404 not_found', () => {
  test('an unknown model', async () => {
    const customer = await tg.customer(1);
    await sdkError(sdk(tg, customer.key).chat.completions.create({ model: 'gpt-99-imaginary', messages: [{ role: 'user', content: 'Hi' }] }), {
      cls: NotFoundError,
      status: 404,
      type: 'not_found',
      param: 'model',
      code: 'model_not_found',
      message: /gpt-99-imaginary/,
    });
    await expectError(tg, '/v1/embeddings', { key: customer.key, body: { model: 'embed-imaginary', input: 'x' } }, 404, { type: 'not_found', param: 'model' });
  });

  test('a compatible path without /v1 names the right address', async () => {
    const customer = await tg.customer(1);
    const res = await expectError(tg, '/chat/completions', { key: customer.key, body: base }, 404, { type: 'not_found' });
    assert.match(res.json.error.message, /\/v1\/chat\/completions/);
    const embeddings = await expectError(tg, '/embeddings', { key: customer.key, body: { model: 'text-embedding-3-small', input: 'x' } }, 404, { type: 'not_found' });
    assert.match(embeddings.json.error.message, /\/v1\/embeddings/);
    // an SDK configured without /v1 gets the hint in its NotFoundError
    await sdkError(sdk(tg, customer.key, tg.origin).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), {
      cls: NotFoundError,
      status: 404,
      type: 'not_found',
      message: /\/v1\/chat\/completions/,
    });
  });
});

describe('429 rate_limit_exceeded', () => {
  test('rpm: the third request within the minute is refused with Retry-After and x-ratelimit-* headers', async () => {
    const customer = await tg.customer(1, { rpm: 2 });
    const client = sdk(tg, customer.key);
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 2; i++) {
      const { response } = await client.chat.completions.create(request).withResponse();
      assert.equal(response.headers.get('x-ratelimit-limit-requests'), '2');
      remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
    }
    assert.deepEqual(remaining, ['1', '0']);
    const spent = USD - tg.balanceNano(customer.accountId);

    const res = await expectError(tg, CHAT, { key: customer.key, body: base }, 429, { type: 'rate_limit_exceeded' });
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers.get('retry-after')}`);
    assert.equal(res.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(res.headers.get('x-ratelimit-remaining-requests'), '0');
    assert.match(res.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+s$/);
    await sdkError(client.chat.completions.create(request), { cls: RateLimitError, status: 429, type: 'rate_limit_exceeded' });
    assert.equal(USD - tg.balanceNano(customer.accountId), spent, 'refused requests cost nothing');
  });

  test('tpm: a request larger than the limit, and one larger than what is left this minute', async () => {
    const customer = await tg.customer(1, { tpm: 200 });
    const client = sdk(tg, customer.key);
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };
    await sdkError(client.chat.completions.create({ ...request, max_tokens: 500 }), { cls: RateLimitError, status: 429, type: 'rate_limit_exceeded', message: /200 tokens per minute/ });

    const { data: first, response } = await client.chat.completions.create({ ...request, max_tokens: 50 }).withResponse();
    assert.equal(response.headers.get('x-ratelimit-limit-tokens'), '200');
    // the admission took the estimate (prompt counted locally + max_tokens): the header tells how much
    const promptEstimate = 200 - Number(response.headers.get('x-ratelimit-remaining-tokens')) - 50;
    assert.ok(promptEstimate > 0);
    // what the request did not use is given back: the minute now holds exactly its real usage
    const left = 200 - first.usage!.total_tokens;
    const res = await expectError(tg, CHAT, { key: customer.key, body: { ...base, max_tokens: left - promptEstimate + 1 } }, 429, { type: 'rate_limit_exceeded' });
    assert.equal(res.headers.get('x-ratelimit-limit-tokens'), '200');
    assert.equal(res.headers.get('x-ratelimit-remaining-tokens'), String(left));
    assert.match(res.headers.get('x-ratelimit-reset-tokens') ?? '', /^\d+s$/);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    // a refused request used nothing: a request that fits exactly in what is left is admitted
    const fits = await client.chat.completions.create({ ...request, max_tokens: left - promptEstimate }).withResponse();
    assert.equal(fits.response.headers.get('x-ratelimit-remaining-tokens'), '0');
  });
});

test('x-request-id is on every answer and echoes the client\'s own', async () => {
  const customer = await tg.customer(1);
  const answers = [
    await raw(tg, 'POST', CHAT, { key: customer.key, body: base }),
    await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...base, stream: true } }),
    await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...base, temperature: 9 } }),
    await raw(tg, 'POST', CHAT, { body: base }),
    await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...base, model: 'nope' } }),
    await raw(tg, 'GET', '/v1/models', { key: customer.key }),
    await raw(tg, 'GET', '/nowhere'),
    await raw(tg, 'GET', '/healthz'),
    await raw(tg, 'GET', '/admin/accounts'),
  ];
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 400, 401, 404, 200, 404, 200, 401]);
  const ids = answers.map((a) => a.headers.get('x-request-id'));
  assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0), JSON.stringify(ids));
  assert.equal(new Set(ids).size, ids.length, 'each answer has its own id');

  const traced = [
    await raw(tg, 'POST', CHAT, { key: customer.key, body: base, headers: { 'x-request-id': 'trace-200' } }),
    await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...base, stream: true }, headers: { 'x-request-id': 'trace-stream' } }),
    await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...base, top_p: 2 }, headers: { 'x-request-id': 'trace-400' } }),
    await raw(tg, 'POST', CHAT, { body: base, headers: { 'x-request-id': 'trace-401' } }),
  ];
  assert.deepEqual(traced.map((a) => a.headers.get('x-request-id')), ['trace-200', 'trace-stream', 'trace-400', 'trace-401']);
});

test('an upstream 400 reaches the client as a 400 and costs nothing', async () => {
  const customer = await tg.customer(1);
  tg.sim!.enqueue({ kind: 'status', status: 400, message: 'Upstream refuses this logit_bias.', code: 'invalid_value' });
  const error = await sdkError(sdk(tg, customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), {
    cls: BadRequestError,
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
  });
  assert.match(error.message, /Upstream refuses this logit_bias/);
  assert.equal(tg.balanceNano(customer.accountId), USD);
  const usage = await tg.admin('GET', `/admin/usage?key_id=${customer.keyId}`);
  assert.deepEqual(usage.body.data.map((r: { status: number; cost_usd: number }) => [r.status, r.cost_usd]), [[400, 0]]);
  await tg.assertBillingInvariants(customer.accountId);
});

test('an upstream 413 reaches the client as a 413 of the specification\'s invalid_request_error type', async () => {
  const customer = await tg.customer(1);
  tg.sim!.enqueue({ kind: 'status', status: 413, message: 'Upstream says the request is too large.' });
  const res = await expectError(tg, CHAT, { key: customer.key, body: base }, 413, { type: 'invalid_request_error' });
  assert.match(res.json.error.message, /too large/);
  assert.equal(tg.balanceNano(customer.accountId), USD);
});

describe('5xx server_error', () => {
  let multi: TestGateway;
  const CANARY_KEY = 'sk-upstream-CANARY-5f1e9d';
  const CANARY_URL = 'http://127.0.0.1:1/canary-path/v1';
  before(async () => {
    multi = await startTestGateway();
    // a second provider of gpt-4o-mini on the same simulator: every provider of the model fails below
    const second = await multi.admin('POST', '/admin/providers', { name: 'sim-b', type: 'openai', base_url: multi.sim!.baseUrl, api_key: 'sim-upstream-key', models: ['gpt-4o-mini'] });
    assert.equal(second.status, 201);
    // gpt-4.1 is served only by providers that cannot work: a wrong upstream key, an unreachable URL
    for (const [name, url] of [['leaky-key', multi.sim!.baseUrl], ['leaky-url', CANARY_URL]] as const) {
      const created = await multi.admin('POST', '/admin/providers', { name, type: 'openai', base_url: url, api_key: CANARY_KEY, models: ['gpt-4.1'] });
      assert.equal(created.status, 201);
    }
  });
  after(async () => {
    await multi.close();
  });

  test('an upstream 500 on every provider: 5xx server_error, both tried, the balance unchanged', async () => {
    const customer = await multi.customer(1);
    const before = multi.sim!.requests.length;
    multi.sim!.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    await sdkError(sdk(multi, customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }), {
      cls: InternalServerError,
      status: 502,
      type: 'server_error',
    });
    assert.equal(multi.sim!.requests.length, before + 2, 'each provider was tried once');

    multi.sim!.enqueue({ kind: 'status', status: 503 }, { kind: 'status', status: 500 });
    const streamed = await expectError(multi, CHAT, { key: customer.key, body: { ...base, stream: true } }, 502, { type: 'server_error' });
    assert.doesNotMatch(streamed.text, /^data:/, 'a stream that never started fails as a plain JSON error');

    assert.equal(multi.balanceNano(customer.accountId), USD);
    await multi.assertBillingInvariants(customer.accountId);
  });

  test('upstream keys and URLs never appear in an error body', async () => {
    const customer = await multi.customer(1);
    const bodies: string[] = [];
    for (const body of [{ ...base, model: 'gpt-4.1' }, { ...base, model: 'gpt-4.1', stream: true }]) {
      const res = await expectError(multi, CHAT, { key: customer.key, body }, 502, { type: 'server_error' });
      bodies.push(res.text);
    }
    multi.sim!.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    bodies.push((await expectError(multi, CHAT, { key: customer.key, body: base }, 502, { type: 'server_error' })).text);
    multi.sim!.enqueue({ kind: 'status', status: 429 }, { kind: 'status', status: 429 });
    bodies.push((await expectError(multi, CHAT, { key: customer.key, body: base }, 429, { type: 'rate_limit_exceeded' })).text);

    const secrets = [CANARY_KEY, 'CANARY', 'canary-path', '127.0.0.1:1/', 'sim-upstream-key', multi.sim!.baseUrl, `:${multi.sim!.port}`];
    for (const text of bodies) {
      for (const secret of secrets) assert.ok(!text.includes(secret), `"${secret}" leaked in ${text}`);
    }
    assert.equal(multi.balanceNano(customer.accountId), USD);
  });
});
