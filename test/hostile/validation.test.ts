// Hostile and careless client input against the real server (issue 17, point 1): every finding of
// the fuzz run reproduced as it was described — extreme numbers reaching pricing, content parts
// without their object, a 100,000-level body, a `model` that is not a string — and each must be a
// 4xx naming the field, in the route's dialect envelope, with nothing charged and billing intact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { assertNotCharged } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, type FamilyUpstream } from '../helpers/families.ts';
import type { Customer } from '../helpers/gateway.ts';
import { startMediaGateway, type MediaGateway } from '../helpers/media.ts';

let mg: MediaGateway;
let anthropic: FamilyUpstream;
let gemini: FamilyUpstream;
let c: Customer;
let start: number;

before(async () => {
  mg = await startMediaGateway();
  anthropic = await addFamilyProvider(mg, 'anthropic');
  gemini = await addFamilyProvider(mg, 'gemini');
});
after(async () => {
  await mg.closeAll();
  await anthropic.close();
  await gemini.close();
});

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function send(path: string, body: string | FormData, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(mg.origin + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${c.key}`,
      ...(typeof body === 'string' && { 'content-type': 'application/json' }),
      ...(path.startsWith('/v1/messages') && { 'anthropic-version': '2023-06-01' }),
      ...headers,
    },
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

const post = (path: string, body: unknown) => send(path, JSON.stringify(body));

/** A 400 in the OpenAI envelope naming `param`. */
function assertOpenAI400(answer: Answer, param: string, rule?: RegExp): void {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.body?.error?.type, 'invalid_request_error', answer.text);
  assert.equal(answer.body.error.param, param, answer.text);
  if (rule) assert.match(answer.body.error.message, rule);
}

/** A 400 in the messages envelope (`{type: "error", error: {type, message}}`) naming the field in its message. */
function assertMessages400(answer: Answer, field: string): void {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.body?.type, 'error', answer.text);
  assert.equal(answer.body.error.type, 'invalid_request_error', answer.text);
  assert.ok(answer.body.error.message.includes(field), `the message names ${field}: ${answer.text}`);
}

/** A 400 in Google's envelope. */
function assertGoogle400(answer: Answer, field: string): void {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.body?.error?.code, 400, answer.text);
  assert.equal(answer.body.error.status, 'INVALID_ARGUMENT', answer.text);
  assert.ok(answer.body.error.message.includes(field), `the message names ${field}: ${answer.text}`);
}

/** Each group of tests bills a customer of its own, so that "nothing was charged" is about that group only. */
function freshCustomer(): void {
  before(async () => {
    c = await mg.customer(50);
    start = mg.balanceNano(c.accountId);
  });
}

const user = [{ role: 'user', content: 'hi' }];
const chat = (extra: Record<string, unknown>, model = 'gpt-4o-mini') => ({ model, messages: user, ...extra });

describe('numbers that reach pricing are bounded integers', () => {
  freshCustomer();
  for (const [field, value] of [
    ['max_tokens', 1e308],
    ['max_tokens', 2 ** 53],
    ['max_completion_tokens', 1e308],
    ['max_tokens', 1.5],
    ['n', 1e308],
  ] as const) {
    test(`chat ${field}: ${value} → 400 naming ${field}`, async () => {
      assertOpenAI400(await post('/v1/chat/completions', chat({ [field]: value })), field);
      for (const family of ['anthropic', 'gemini'] as const) {
        assertOpenAI400(await post('/v1/chat/completions', chat({ [field]: value }, CHAT_MODEL[family])), field);
      }
    });
  }

  test('a number written as 1e308 in the raw JSON (as no SDK would) is refused, not priced', async () => {
    assertOpenAI400(await send('/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":1e308}'), 'max_tokens');
    assertOpenAI400(await send('/v1/completions', '{"model":"gpt-3.5-turbo-instruct","prompt":"hi","max_tokens":1e308}'), 'max_tokens');
  });

  test('messages max_tokens 1e308 → Anthropic envelope naming max_tokens (raw and through the SDK)', async () => {
    assertMessages400(await send('/v1/messages', `{"model":"${CHAT_MODEL.anthropic}","max_tokens":1e308,"messages":[{"role":"user","content":"hi"}]}`), 'max_tokens');
    assertMessages400(await post('/v1/messages', { model: 'gpt-4o-mini', max_tokens: 2 ** 60, messages: user }), 'max_tokens');
    const sdk = new Anthropic({ apiKey: c.key, baseURL: mg.origin, maxRetries: 0 });
    // (a timeout of its own: else the SDK refuses such a max_tokens itself, before sending)
    await assert.rejects(sdk.messages.create({ model: CHAT_MODEL.anthropic, max_tokens: 1e308, messages: [{ role: 'user', content: 'hi' }] }, { timeout: 10_000 }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.match(error.message, /max_tokens/);
      return true;
    });
  });

  test('the OpenAI SDK gets a BadRequestError naming param for max_tokens 1e308', async () => {
    const sdk = new OpenAI({ apiKey: c.key, baseURL: mg.baseURL, maxRetries: 0 });
    await assert.rejects(sdk.chat.completions.create({ model: CHAT_MODEL.gemini, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1e308 }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.param, 'max_tokens');
      return true;
    });
  });

  test('nothing above was charged', async () => {
    await assertNotCharged(mg, c.accountId, start);
  });
});

describe('content parts have the shape the converters read', () => {
  freshCustomer();
  for (const part of [{ type: 'image_url' }, { type: 'image_url', image_url: 'https://example.com/a.png' }, { type: 'image_url', image_url: null }, { type: 'image_url', image_url: {} }]) {
    test(`${JSON.stringify(part)} → 400 naming the part, for every family`, async () => {
      for (const model of [CHAT_MODEL.anthropic, CHAT_MODEL.gemini, 'gpt-4o-mini']) {
        const answer = await post('/v1/chat/completions', { model, messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, part] }] });
        assert.equal(answer.status, 400, `${model}: ${answer.text}`);
        assert.match(answer.body.error.param, /^messages\[0\]\.content\[1\]\.image_url/, answer.text);
      }
    });
  }

  test('a text part without its text, input_audio and file without their objects → 400 naming the field', async () => {
    for (const [part, param] of [
      [{ type: 'text' }, 'messages[0].content[0].text'],
      [{ type: 'text', text: 5 }, 'messages[0].content[0].text'],
      [{ type: 'input_audio' }, 'messages[0].content[0].input_audio'],
      [{ type: 'input_audio', input_audio: { data: 'AAAA' } }, 'messages[0].content[0].input_audio.format'],
      [{ type: 'file', file: 'x' }, 'messages[0].content[0].file'],
    ] as const) {
      for (const model of [CHAT_MODEL.anthropic, CHAT_MODEL.gemini]) {
        assertOpenAI400(await post('/v1/chat/completions', { model, messages: [{ role: 'user', content: [part] }] }), param);
      }
    }
  });

  test('messages dialect: an image block without a source, a tool_use without input name → Anthropic envelope', async () => {
    for (const model of [CHAT_MODEL.gemini, 'gpt-4o-mini', CHAT_MODEL.anthropic]) {
      assertMessages400(await post('/v1/messages', { model, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image' }] }] }), 'source');
      assertMessages400(await post('/v1/messages', { model, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] }), 'source');
      assertMessages400(await post('/v1/messages', { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'x', input: {} }] }] }), 'name');
      assertMessages400(await post('/v1/messages/count_tokens', { model, messages: [{ role: 'user', content: [{ type: 'text', text: ['x'] }] }] }), 'text');
    }
  });

  test(':predict instances of the wrong shape → Google envelope', async () => {
    assertGoogle400(await send('/v1beta/models/img-c-4.0-generate-001:predict', JSON.stringify({ instances: [null] })), 'instances[0]');
    assertGoogle400(await send('/v1beta/models/img-c-4.0-generate-001:predict', JSON.stringify({ instances: [{ prompt: 'a cat' }], parameters: { sampleCount: 1e308 } })), 'sampleCount');
  });

  test('nothing above was charged', async () => {
    await assertNotCharged(mg, c.accountId, start);
  });
});

describe('nesting depth is limited while parsing', () => {
  freshCustomer();
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  test('a 100,000-level chat body → 400 in the OpenAI envelope, the process alive', async () => {
    const answer = await send('/v1/chat/completions', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":${deep(100_000)}}`);
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.error.type, 'invalid_request_error');
    assert.match(answer.body.error.message, /nest/i);
    const health = await fetch(`${mg.origin}/healthz`);
    assert.equal(health.status, 200);
  });

  test('on the messages and Google routes the refusal is in their envelopes', async () => {
    assertMessages400(await send('/v1/messages', `{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"x":${deep(100_000)}}`), 'nest');
    assertGoogle400(await send('/v1beta/models/img-c-4.0-generate-001:predict', `{"instances":[{"prompt":"a cat"}],"parameters":{"x":${deep(100_000)}}}`), 'nest');
  });

  test('a deep body that reaches the upstream as an unknown field (200 levels) is refused, 64 levels pass', async () => {
    const nested = (levels: number) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"user_data":${deep(levels)}}`;
    assert.equal((await send('/v1/chat/completions', nested(200))).status, 400);
    assert.equal((await send('/v1/chat/completions', nested(60))).status, 200);
  });

  test('brackets inside strings do not count; prototype poisoning is still refused', async () => {
    const inString = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}]}`;
    assert.equal((await send('/v1/chat/completions', inString)).status, 200);
    const poisoned = await send('/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"__proto__":{"x":1}}');
    assert.equal(poisoned.status, 400, poisoned.text);
    assert.equal(poisoned.body.error.type, 'invalid_request_error');
  });

  test('the body-size limit still answers 413', async () => {
    const big = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${'a'.repeat(mg.gateway.config.maxBodyBytes)}"}]}`;
    const answer = await send('/v1/chat/completions', big);
    assert.equal(answer.status, 413, answer.text.slice(0, 300));
  });
});

describe('model is a string of 1..256 characters on every route', () => {
  freshCustomer();
  const long = 'm'.repeat(257);

  test('POST /v1/videos with model as an array or an object → 400 naming model; billing keeps working', async () => {
    for (const model of [['sora-2'], { id: 'sora-2' }, 5, long, '']) {
      assertOpenAI400(await post('/v1/videos', { model, prompt: 'a boat', seconds: '4' }), 'model');
    }
    // the usage table answers and a valid request is still billed
    const usage = await mg.admin('GET', `/admin/usage?account_id=${c.accountId}`);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    await assertNotCharged(mg, c.accountId, start);
    const accounts = await mg.admin('POST', '/admin/accounts', { name: 'after-the-videos' });
    assert.equal(accounts.status, 201);
  });

  test('every JSON route refuses a 257-character or non-string model naming model', async () => {
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['/v1/chat/completions', { messages: user }],
      ['/v1/completions', { prompt: 'hi' }],
      ['/v1/embeddings', { input: 'hi' }],
      ['/v1/images/generations', { prompt: 'a cat' }],
      ['/v1/images/edits', { prompt: 'a cat', image: 'AAAA' }],
      ['/v1/audio/speech', { input: 'hi', voice: 'alloy' }],
      ['/v1/videos/generations', { prompt: 'a boat', duration: 4 }],
      ['/v1/videos', { prompt: 'a boat' }],
      ['/v1/moderations', { input: 'hi' }],
      ['/v1/rerank', { query: 'q', documents: ['a'] }],
    ];
    for (const [path, body] of bodies) {
      for (const model of [long, ['gpt-4o-mini'], { a: 1 }]) assertOpenAI400(await post(path, { ...body, model }), 'model');
    }
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      for (const model of [long, ['gpt-4o-mini']]) assertMessages400(await post(path, { model, max_tokens: 5, messages: user }), 'model');
    }
  });

  test('multipart fields and the :predict path refuse a 257-character model', async () => {
    for (const path of ['/v1/audio/transcriptions', '/v1/images/edits', '/v1/videos']) {
      const form = new FormData();
      form.set('model', long);
      form.set('prompt', 'x');
      if (path !== '/v1/videos') form.set('file', new Blob([new Uint8Array(16)]), 'a.wav');
      assertOpenAI400(await send(path, form), 'model');
    }
    assertGoogle400(await send(`/v1beta/models/${long}:predict`, JSON.stringify({ instances: [{ prompt: 'a cat' }] })), 'model');
  });

  test('nothing above was charged', async () => {
    await assertNotCharged(mg, c.accountId, start);
  });
});

describe('an exception that escapes is logged with the request id and answered in the dialect, without internals', () => {
  freshCustomer();
  test('OpenAI, messages and Google routes each get their 500 envelope, no stack, no message', async () => {
    const router = mg.gateway.router;
    const original = router.serves.bind(router);
    const logged: Array<Record<string, unknown>> = [];
    const log = mg.gateway.log;
    const originalError = log.error.bind(log);
    router.serves = ((model: string) => {
      if (model === 'boom-model') throw new TypeError('secret internal detail at /srv/modelgate/src/x.ts:12');
      return original(model);
    }) as typeof router.serves;
    log.error = ((obj: unknown, ...rest: unknown[]) => {
      if (typeof obj === 'object' && obj !== null) logged.push(obj as Record<string, unknown>);
      return (originalError as (...args: unknown[]) => void)(obj, ...rest);
    }) as typeof log.error;
    try {
      const openai = await post('/v1/messages/count_tokens', { model: 'boom-model', messages: user });
      assert.equal(openai.status, 500, openai.text);
      assert.equal(openai.body.type, 'error');
      assert.equal(openai.body.error.type, 'server_error');
      const google = await send('/v1beta/models/boom-model:predict', JSON.stringify({ instances: [{ prompt: 'a cat' }] }), { 'x-request-id': 'client-trace-17' });
      assert.equal(google.status, 500, google.text);
      assert.equal(google.body.error.status, 'INTERNAL');
      for (const answer of [openai, google]) {
        assert.ok(!answer.text.includes('secret internal detail'), answer.text);
        assert.ok(!answer.text.includes('.ts:'), answer.text);
      }
      assert.equal(logged.filter((line) => typeof line.reqId === 'string' && line.reqId !== '').length, 2, JSON.stringify(logged));
      assert.equal(logged.at(-1)!.correlationId, 'client-trace-17', 'the id the client was told to quote is in the log line');
    } finally {
      router.serves = original;
      log.error = originalError;
    }
  });
});

describe('query strings and path parameters of the wrong shape are 4xx, never 5xx', () => {
  freshCustomer();

  test('repeated, oversized and non-numeric query values on the GET routes', async () => {
    const long = 'x'.repeat(5000);
    const client = [
      `/v1/videos?after=a&after=b&limit=2&limit=3&order=asc&order=desc`,
      `/v1/videos?limit=abc&after=${long}`,
      `/v1/videos/video_x/content?variant=video&variant=other`,
      `/v1/videos/${long}`,
      `/v1/models/${'m'.repeat(300)}`,
      `/media/abc.mp4?expires=1&expires=2&sig=a&sig=b`,
      `/media/abc.mp4?expires=${long}&sig=${long}`,
    ];
    const wrong: string[] = [];
    for (const path of client) {
      const res = await fetch(mg.origin + path, { headers: { authorization: `Bearer ${c.key}` } });
      const text = await res.text();
      if (!(res.status >= 400 && res.status < 500)) wrong.push(`${path.slice(0, 80)}: ${res.status} ${text.slice(0, 200)}`);
    }
    const admin = [
      `/admin/usage?account_id=a&account_id=b&limit=1&limit=2`,
      `/admin/usage?from=abc&to=${long}`,
      `/admin/accounts?limit=1e308`,
      `/admin/accounts/${long}/ledger?before=a&before=b`,
      `/admin/keys/${long}`,
    ];
    for (const path of admin) {
      const res = await mg.admin('GET', path);
      if (!(res.status >= 400 && res.status < 500)) wrong.push(`${path.slice(0, 80)}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('operator input: admin numbers stay within what the money code holds', () => {
  freshCustomer();

  test('a model capability of 1e308 (max_output_tokens, n_max) is refused naming the capability; chats on the model still work', async () => {
    for (const [name, value] of [
      ['max_output_tokens', 1e308],
      ['n_max', 1e300],
      ['durations', [4, 1e308]],
    ] as const) {
      const put = await mg.admin('PUT', '/admin/models/gpt-4o-mini', { capabilities: { [name]: value } });
      assert.equal(put.status, 400, JSON.stringify(put.body));
      assert.ok(String(put.body.error.param).startsWith(`capabilities.${name}`), JSON.stringify(put.body));
    }
    const ok = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: user });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a ledger cursor or limit beyond a safe integer is a 400', async () => {
    for (const path of [`/admin/accounts/${c.accountId}/ledger?before=1e308`, `/admin/usage?before=1e308`]) {
      const res = await mg.admin('GET', path);
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
    }
  });
});
