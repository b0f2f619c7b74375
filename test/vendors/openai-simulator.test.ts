// The OpenAI-family simulator, exercised over real sockets with plain fetch (exact bytes) and with
// the official `openai` client (what end-to-end tests will point at the gateway).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { encode } from 'gpt-tokenizer';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Completion } from 'openai/resources/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { startOpenAISimulator, type OpenAISimulator, type OpenAISimulatorOptions } from '../../simulators/openai/server.ts';

const API_KEY = 'sk-sim-test';
const UTF8_SAMPLE = 'héllo 世界 🙂';

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

let sim: OpenAISimulator;
before(async () => {
  sim = await startOpenAISimulator({ apiKey: API_KEY });
});
after(() => sim.close());
beforeEach(() => sim.reset());

/** A throw-away simulator with its own options, closed when `use` finishes. */
async function withSimulator(options: Partial<OpenAISimulatorOptions>, use: (server: OpenAISimulator) => Promise<void>): Promise<void> {
  const server = await startOpenAISimulator({ apiKey: API_KEY, ...options });
  try {
    await use(server);
  } finally {
    await server.close();
  }
}

function post(path: string, body: unknown, options: { server?: OpenAISimulator; key?: string } = {}): Promise<Response> {
  return fetch(`${(options.server ?? sim).baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key ?? API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function postJson<T>(path: string, body: unknown, server?: OpenAISimulator): Promise<T> {
  const response = await post(path, body, server ? { server } : {});
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

const chat = (content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content }],
  ...extra,
});

/** Splits a complete SSE body into `data:` payloads, asserting the framing byte by byte. */
function sseData(raw: string): string[] {
  assert.ok(raw.endsWith('\n\n'), 'every event ends with a blank line');
  const blocks = raw.slice(0, -2).split('\n\n');
  return blocks.map((block) => {
    assert.ok(!block.includes('\n'), `one line per event: ${JSON.stringify(block)}`);
    assert.ok(block.startsWith('data: '), `only data lines: ${block}`);
    return block.slice('data: '.length);
  });
}

async function streamChat(body: Record<string, unknown>, server?: OpenAISimulator): Promise<{ raw: string; chunks: ChatCompletionChunk[] }> {
  const response = await post('/chat/completions', { ...body, stream: true }, server ? { server } : {});
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const raw = await response.text();
  const data = sseData(raw);
  assert.equal(data.at(-1), '[DONE]');
  assert.equal(data.indexOf('[DONE]'), data.length - 1, '[DONE] comes last and once');
  return { raw, chunks: data.slice(0, -1).map((line) => JSON.parse(line) as ChatCompletionChunk) };
}

const contentOf = (chunks: readonly ChatCompletionChunk[], index = 0): string =>
  chunks.map((chunk) => chunk.choices.find((choice) => choice.index === index)?.delta.content ?? '').join('');

/** Reads a body that is expected to end abruptly; returns what arrived before the connection died. */
async function readUntilCut(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  await assert.rejects(async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  });
  return text;
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' }, unit: { type: 'string', enum: ['c', 'f'] }, tags: { type: 'array', items: { type: 'string' } } },
    },
  },
};
const timeTool = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } } };

describe('auth and routing', () => {
  test('wrong, missing or non-Bearer keys get the 401 envelope', async () => {
    for (const authorization of ['Bearer wrong', '', API_KEY]) {
      const response = await fetch(`${sim.baseUrl}/models`, { headers: authorization ? { authorization } : {} });
      assert.equal(response.status, 401);
      const body = (await response.json()) as ErrorEnvelope;
      assert.deepEqual({ ...body.error, message: undefined }, { message: undefined, type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    }
    assert.equal((await post('/chat/completions', chat('hi'), { key: 'nope' })).status, 401);
  });

  test('unknown path → 404, bad JSON → 400, body over 32 MiB → 413', async () => {
    const notFound = await post('/nothing', {});
    assert.equal(notFound.status, 404);
    assert.equal(((await notFound.json()) as ErrorEnvelope).error.message, 'Invalid URL (POST /v1/nothing)');

    const badJson = await fetch(`${sim.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: '{"model":' });
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as ErrorEnvelope).error.type, 'invalid_request_error');

    const huge = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(32 * 1024 * 1024) }] });
    const tooLarge = await fetch(`${sim.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: huge });
    assert.equal(tooLarge.status, 413);
    assert.ok(((await tooLarge.json()) as ErrorEnvelope).error.message.includes('limit'));
  });

  test('records every request and reset() clears requests and queue', async () => {
    const body = chat('record me', { temperature: 0.5 });
    await postJson('/chat/completions', body);
    assert.equal(sim.requests.length, 1);
    const [recorded] = sim.requests;
    assert.equal(recorded?.method, 'POST');
    assert.equal(recorded?.path, '/v1/chat/completions');
    assert.equal(recorded?.headers.authorization, `Bearer ${API_KEY}`);
    assert.deepEqual(recorded?.body, body);
    sim.enqueue({ kind: 'status', status: 500 });
    sim.reset();
    assert.equal(sim.requests.length, 0);
    await postJson('/chat/completions', chat('queue was cleared'));
  });

  test('close() ends pending delays and open sockets promptly', async () => {
    const server = await startOpenAISimulator({ apiKey: API_KEY, latencyMs: 60_000 });
    const pending = post('/chat/completions', chat('never answered'), { server });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    await server.close();
    await assert.rejects(pending);
    assert.ok(performance.now() - started < 2_000);
  });
});

describe('chat completions (JSON)', () => {
  test('echo reply shaped like protocols.md 1.5 with exact token usage', async () => {
    const text = 'Hello simulator, please answer';
    const completion = await postJson<ChatCompletion>('/chat/completions', chat(text));
    assert.match(completion.id, /^chatcmpl-/);
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'gpt-4o');
    assert.equal(typeof completion.created, 'number');
    assert.match(completion.system_fingerprint ?? '', /^fp_/);
    const [choice] = completion.choices;
    assert.equal(choice?.index, 0);
    assert.equal(choice?.finish_reason, 'stop');
    assert.equal(choice?.message.role, 'assistant');
    const content = choice?.message.content ?? '';
    assert.ok(content.startsWith(`Echo: ${text}`));
    assert.ok(content.includes(UTF8_SAMPLE));
    assert.ok(content.split(' ').length >= 20);
    const promptTokens = 3 + 3 + encode('user').length + encode(text).length;
    assert.deepEqual(completion.usage, {
      prompt_tokens: promptTokens,
      completion_tokens: encode(content).length,
      total_tokens: promptTokens + encode(content).length,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
  });

  test('deterministic: the same request gives the same bytes apart from the id; fixedClock pins created', async () => {
    await withSimulator({ fixedClock: 1763700000, recordRequests: false }, async (server) => {
      const texts = await Promise.all([1, 2].map(async () => (await post('/chat/completions', chat('same'), { server })).text()));
      const withoutId = texts.map((text) => text.replace(/chatcmpl-\w+/, 'ID'));
      assert.equal(withoutId[0], withoutId[1]);
      assert.equal((JSON.parse(texts[0]!) as ChatCompletion).created, 1763700000);
      assert.equal(server.requests.length, 0, 'recordRequests: false keeps nothing');
    });
  });

  test('missing model or messages → 400 naming the param', async () => {
    for (const [body, param] of [[{ messages: [{ role: 'user', content: 'x' }] }, 'model'], [{ model: 'gpt-4o' }, 'messages'], [{ model: 'gpt-4o', messages: [] }, 'messages']] as const) {
      const response = await post('/chat/completions', body);
      assert.equal(response.status, 400);
      const { error } = (await response.json()) as ErrorEnvelope;
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, param);
    }
  });

  test('max_tokens / max_completion_tokens truncate with finish_reason "length"', async () => {
    const full = (await postJson<ChatCompletion>('/chat/completions', chat('truncate me'))).choices[0]?.message.content ?? '';
    for (const field of ['max_tokens', 'max_completion_tokens']) {
      const completion = await postJson<ChatCompletion>('/chat/completions', chat('truncate me', { [field]: 5 }));
      const [choice] = completion.choices;
      const content = choice?.message.content ?? '';
      assert.equal(choice?.finish_reason, 'length');
      assert.equal(completion.usage?.completion_tokens, 5);
      assert.equal(content, new TextDecoder().decode(new TextEncoder().encode(content)), 'no broken characters');
      assert.ok(content.length > 0 && full.startsWith(content) && content.length < full.length);
    }
  });

  test('stop cuts at the first stop sequence (not included) with finish_reason "stop"', async () => {
    const completion = await postJson<ChatCompletion>('/chat/completions', chat('cut here', { stop: ['世界', 'zzz'] }));
    const content = completion.choices[0]?.message.content ?? '';
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.ok(content.endsWith('héllo '), content);
    assert.ok(!content.includes('世界'));
  });

  test('n gives n different choices and bills all of them', async () => {
    const completion = await postJson<ChatCompletion>('/chat/completions', chat('three please', { n: 3 }));
    assert.deepEqual(completion.choices.map((choice) => choice.index), [0, 1, 2]);
    const contents = completion.choices.map((choice) => choice.message.content ?? '');
    assert.equal(new Set(contents).size, 3);
    const completionTokens = contents.reduce((sum, content) => sum + encode(content).length, 0);
    assert.equal(completion.usage?.completion_tokens, completionTokens);
  });

  test('image parts are accepted and cost 85 tokens each', async () => {
    const textOnly = await postJson<ChatCompletion>('/chat/completions', chat('describe'));
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const withImages = await postJson<ChatCompletion>('/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, image, image] }],
    });
    assert.equal(withImages.usage!.prompt_tokens - textOnly.usage!.prompt_tokens, 170);
  });

  test('tools: one call to the first tool with arguments built from the schema', async () => {
    const completion = await postJson<ChatCompletion>('/chat/completions', chat('weather?', { tools: [weatherTool, timeTool] }));
    const [choice] = completion.choices;
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    const calls = choice?.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.match(call.id, /^call_[0-9a-f]{24}$/);
    assert.equal(call.type, 'function');
    if (call.type !== 'function') return;
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'sample', days: 1, metric: true, unit: 'c', tags: ['sample'] });
    assert.equal(completion.usage?.completion_tokens, encode('get_weather').length + encode(call.function.arguments).length);
    const again = await postJson<ChatCompletion>('/chat/completions', chat('weather?', { tools: [weatherTool, timeTool] }));
    assert.equal(again.choices[0]?.message.tool_calls?.[0]?.id, call.id, 'ids are deterministic');
  });

  test('tools: named tool_choice, "parallel", parallel_tool_calls:false and tool_choice "none"', async () => {
    const names = (completion: ChatCompletion): string[] =>
      (completion.choices[0]?.message.tool_calls ?? []).map((call) => (call.type === 'function' ? call.function.name : call.type));
    const tools = [weatherTool, timeTool];
    const named = await postJson<ChatCompletion>('/chat/completions', chat('time?', { tools, tool_choice: { type: 'function', function: { name: 'get_time' } } }));
    assert.deepEqual(names(named), ['get_time']);
    const parallel = await postJson<ChatCompletion>('/chat/completions', chat('do these in parallel', { tools }));
    assert.deepEqual(names(parallel), ['get_weather', 'get_time']);
    const ids = parallel.choices[0]?.message.tool_calls?.map((call) => call.id) ?? [];
    assert.equal(new Set(ids).size, 2);
    const serial = await postJson<ChatCompletion>('/chat/completions', chat('do these in parallel', { tools, parallel_tool_calls: false }));
    assert.deepEqual(names(serial), ['get_weather']);
    const none = await postJson<ChatCompletion>('/chat/completions', chat('no tools', { tools, tool_choice: 'none' }));
    assert.equal(none.choices[0]?.finish_reason, 'stop');
    assert.ok(none.choices[0]?.message.content?.startsWith('Echo: no tools'));
  });

  test('a trailing tool message gets a text reply containing the tool result', async () => {
    const completion = await postJson<ChatCompletion>('/chat/completions', {
      model: 'gpt-4o',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
      ],
    });
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.ok(completion.choices[0]?.message.content?.includes('{"temp":21}'));
  });
});

describe('chat completions (stream)', () => {
  test('framing: role chunk, streamChunks content chunks, finish chunk, [DONE]; no usage unless asked', async () => {
    const json = await postJson<ChatCompletion>('/chat/completions', chat('stream me'));
    const { chunks } = await streamChat(chat('stream me'));
    assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
    const contentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta.content);
    assert.equal(contentChunks.length, 20);
    assert.equal(contentOf(chunks), json.choices[0]?.message.content);
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
    assert.ok(chunks.every((chunk) => !('usage' in chunk)));
    assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0]?.id && chunk.model === 'gpt-4o'));
  });

  test('include_usage: usage null on every chunk, then one choices:[] chunk with the totals', async () => {
    const json = await postJson<ChatCompletion>('/chat/completions', chat('count me'));
    const { chunks } = await streamChat(chat('count me', { stream_options: { include_usage: true } }));
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, json.usage);
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
  });

  test('streamChunks option sets the number of content chunks; short replies give fewer', async () => {
    await withSimulator({ streamChunks: 4, chunkDelayMs: 1 }, async (server) => {
      const { chunks } = await streamChat(chat('four'), server);
      assert.equal(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length, 4);
    });
    sim.enqueue({ kind: 'reply', text: 'two words' });
    const { chunks } = await streamChat(chat('short'));
    assert.deepEqual(chunks.map((chunk) => chunk.choices[0]?.delta.content).filter(Boolean), ['two ', 'words']);
  });

  test('tool calls stream as deltas with dense indexes; id/type/name only in the first fragment', async () => {
    const { chunks } = await streamChat(chat('run in parallel', { tools: [weatherTool, timeTool] }));
    const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const byIndex = new Map<number, typeof fragments>();
    for (const fragment of fragments) byIndex.set(fragment.index, [...(byIndex.get(fragment.index) ?? []), fragment]);
    assert.deepEqual([...byIndex.keys()], [0, 1]);
    for (const [index, parts] of byIndex) {
      const [first, ...rest] = parts;
      assert.match(first?.id ?? '', /^call_/);
      assert.equal(first?.type, 'function');
      assert.equal(first?.function?.name, index === 0 ? 'get_weather' : 'get_time');
      assert.equal(first?.function?.arguments, '');
      assert.ok(rest.length > 0 && rest.every((part) => part.id === undefined && part.function?.name === undefined));
      assert.doesNotThrow(() => JSON.parse(rest.map((part) => part.function?.arguments).join('')));
    }
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'tool_calls');
  });

  test('n > 1 interleaves choices, each with its own role and finish chunk', async () => {
    const { chunks } = await streamChat(chat('two choices', { n: 2 }));
    const finishes = chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.finish_reason).map((choice) => choice.index));
    assert.deepEqual(finishes, [0, 1]);
    assert.ok(contentOf(chunks, 0).startsWith('Echo: two choices'));
    assert.ok(contentOf(chunks, 1).startsWith('Echo #2: two choices'));
  });

  test('a client that leaves mid-stream does not disturb the server', async () => {
    await withSimulator({ chunkDelayMs: 20 }, async (server) => {
      const controller = new AbortController();
      const response = await fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(chat('leave early', { stream: true })),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      assert.equal((await reader.read()).done, false);
      controller.abort();
      assert.equal((await post('/chat/completions', chat('still fine'), { server })).status, 200);
    });
  });

  test('UTF-8 survives arbitrary network chunking', async () => {
    await withSimulator({ streamChunks: 40 }, async (server) => {
      const response = await post('/chat/completions', chat(UTF8_SAMPLE, { stream: true }), { server });
      const decoder = new TextDecoder('utf-8', { fatal: true });
      let raw = '';
      for await (const bytes of response.body!) {
        // Re-split every network chunk one byte at a time: multi-byte characters straddle pieces.
        for (const byte of bytes as Uint8Array) raw += decoder.decode(Uint8Array.of(byte), { stream: true });
      }
      raw += decoder.decode();
      const chunks = sseData(raw).slice(0, -1).map((line) => JSON.parse(line) as ChatCompletionChunk);
      assert.ok(contentOf(chunks).includes(`Echo: ${UTF8_SAMPLE}`));
    });
  });
});

describe('scenarios', () => {
  test('status: 429 with retry-after and rate-limit envelope; 5xx server_error; overrides; never a stream', async () => {
    sim.enqueue({ kind: 'status', status: 429, retryAfterSeconds: 7 }, { kind: 'status', status: 503 }, { kind: 'status', status: 400, code: 'context_length_exceeded', message: 'too long' });
    const limited = await post('/chat/completions', chat('a', { stream: true }));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.match(limited.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(((await limited.json()) as ErrorEnvelope).error.code, 'rate_limit_exceeded');
    const overloaded = await post('/chat/completions', chat('b'));
    assert.equal(overloaded.status, 503);
    assert.equal(((await overloaded.json()) as ErrorEnvelope).error.type, 'server_error');
    const bad = await post('/embeddings', { model: 'text-embedding-3-small', input: 'c' });
    assert.equal(bad.status, 400);
    assert.deepEqual((await bad.json()) as ErrorEnvelope, { error: { message: 'too long', type: 'invalid_request_error', param: null, code: 'context_length_exceeded' } });
    assert.equal((await post('/chat/completions', chat('d'))).status, 200, 'queue is FIFO and each scenario is used once');
  });

  test('GET requests do not consume scenarios', async () => {
    sim.enqueue({ kind: 'status', status: 500 });
    assert.equal((await fetch(`${sim.baseUrl}/models`, { headers: { authorization: `Bearer ${API_KEY}` } })).status, 200);
    assert.equal((await post('/chat/completions', chat('x'))).status, 500);
  });

  test('slow-first-byte delays the headers, then answers normally', async () => {
    sim.enqueue({ kind: 'slow-first-byte', delayMs: 150 });
    const started = performance.now();
    const response = await post('/chat/completions', chat('slow'));
    assert.ok(performance.now() - started >= 140);
    assert.equal(response.status, 200);
  });

  test('cut-stream: N content chunks, then the socket dies (no finish, no usage, no [DONE])', async () => {
    sim.enqueue({ kind: 'cut-stream', afterChunks: 3 });
    const response = await post('/chat/completions', chat('cut', { stream: true, stream_options: { include_usage: true } }));
    const received = await readUntilCut(response);
    const data = sseData(received);
    assert.equal(data.length, 4, 'role chunk + 3 content chunks');
    assert.ok(!received.includes('[DONE]') && !received.includes('finish_reason":"stop') && !received.includes('"usage":{'));
  });

  test('cut-stream on a non-stream request drops the connection without a response', async () => {
    sim.enqueue({ kind: 'cut-stream', afterChunks: 0 });
    await assert.rejects(post('/chat/completions', chat('cut')));
  });

  test('usage and no-usage override the reported usage', async () => {
    sim.enqueue({ kind: 'usage', cachedTokens: 64, promptTokens: 100, completionTokens: 5 }, { kind: 'no-usage' }, { kind: 'no-usage' });
    const overridden = await postJson<ChatCompletion>('/chat/completions', chat('u'));
    assert.equal(overridden.usage?.prompt_tokens, 100);
    assert.equal(overridden.usage?.completion_tokens, 5);
    assert.equal(overridden.usage?.total_tokens, 105);
    assert.equal(overridden.usage?.prompt_tokens_details?.cached_tokens, 64);
    const missing = await postJson<ChatCompletion>('/chat/completions', chat('u'));
    assert.ok(!('usage' in missing));
    const { chunks } = await streamChat(chat('u', { stream_options: { include_usage: true } }));
    assert.ok(chunks.every((chunk) => chunk.usage === null && chunk.choices.length === 1));
  });

  test('reply sets the exact assistant text', async () => {
    sim.enqueue({ kind: 'reply', text: 'Exactly this.' }, { kind: 'reply', text: 'Streamed exactly.' });
    const completion = await postJson<ChatCompletion>('/chat/completions', chat('whatever', { tools: [weatherTool] }));
    assert.equal(completion.choices[0]?.message.content, 'Exactly this.');
    const { chunks } = await streamChat(chat('whatever'));
    assert.equal(contentOf(chunks), 'Streamed exactly.');
  });

  test('malformed-event puts one `data: {not json` event mid-stream and still ends with [DONE]', async () => {
    sim.enqueue({ kind: 'malformed-event' });
    const response = await post('/chat/completions', chat('m', { stream: true }));
    const data = sseData(await response.text());
    const at = data.indexOf('{not json');
    assert.ok(at > 1 && at < data.length - 3, `in the middle (at ${at} of ${data.length})`);
    assert.equal(data.filter((line) => line === '{not json').length, 1);
    assert.equal(data.at(-1), '[DONE]');
  });

  test('prompt directives trigger the same scenarios: status, cut, slow', async () => {
    const limited = await post('/chat/completions', chat('please [[sim:status=429]]'));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '1');
    const cut = await post('/chat/completions', chat('[[sim:cut=2]] go', { stream: true }));
    assert.equal(sseData(await readUntilCut(cut)).length, 3);
    const started = performance.now();
    assert.equal((await post('/chat/completions', chat('[[sim:slow=120]]'))).status, 200);
    assert.ok(performance.now() - started >= 110);
    sim.enqueue({ kind: 'reply', text: 'queue wins' });
    const queued = await postJson<ChatCompletion>('/chat/completions', chat('[[sim:status=500]]'));
    assert.equal(queued.choices[0]?.message.content, 'queue wins');
  });
});

describe('legacy completions', () => {
  test('text_completion with default max_tokens 16, prompt arrays × n, stop', async () => {
    const completion = await postJson<Completion>('/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon a time' });
    assert.equal(completion.object, 'text_completion');
    assert.match(completion.id, /^cmpl-/);
    assert.deepEqual(Object.keys(completion.choices[0]!), ['text', 'index', 'logprobs', 'finish_reason']);
    assert.equal(completion.choices[0]?.finish_reason, 'length');
    assert.equal(completion.usage?.completion_tokens, 16);
    assert.equal(completion.usage?.prompt_tokens, encode('Once upon a time').length);

    const many = await postJson<Completion>('/completions', { model: 'gpt-3.5-turbo-instruct', prompt: ['a', 'b'], n: 2, max_tokens: 200, stop: '世界' });
    assert.deepEqual(many.choices.map((choice) => choice.index), [0, 1, 2, 3]);
    assert.ok(many.choices.every((choice) => choice.finish_reason === 'stop' && choice.text.endsWith('héllo ')));
    assert.ok(many.choices[2]?.text.startsWith(' Echo: b'));
    const fromTokens = await postJson<Completion>('/completions', { model: 'gpt-3.5-turbo-instruct', prompt: encode('Once upon a time') });
    assert.equal(fromTokens.choices[0]?.text, completion.choices[0]?.text);
    assert.equal((await post('/completions', { model: 'gpt-3.5-turbo-instruct', prompt: [[999999999]] })).status, 400);
  });

  test('streams text_completion chunks, finish chunk, usage only when asked, [DONE]', async () => {
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'stream', max_tokens: 50 };
    const json = await postJson<Completion>('/completions', body);
    const response = await post('/completions', { ...body, stream: true, stream_options: { include_usage: true } });
    const data = sseData(await response.text());
    assert.equal(data.pop(), '[DONE]');
    const chunks = data.map((line) => JSON.parse(line) as Completion);
    assert.ok(chunks.every((chunk) => chunk.object === 'text_completion'));
    assert.deepEqual(chunks.at(-1)?.usage, json.usage);
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join(''), json.choices[0]?.text);
    assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, json.choices[0]?.finish_reason);
  });
});

describe('embeddings', () => {
  const norm = (vector: readonly number[]): number => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

  test('native dimensions per model, unit length, deterministic per input', async () => {
    for (const [model, size] of [['text-embedding-3-small', 1536], ['text-embedding-3-large', 3072], ['text-embedding-ada-002', 1536], ['nomic-embed-text', 768]] as const) {
      const response = await postJson<CreateEmbeddingResponse>('/embeddings', { model, input: ['alpha', 'beta', 'alpha'] });
      assert.equal(response.object, 'list');
      assert.equal(response.model, model);
      const [a, b, a2] = response.data.map((item) => item.embedding);
      assert.equal(a?.length, size);
      assert.ok(Math.abs(norm(a!) - 1) < 1e-5);
      assert.deepEqual(a, a2);
      assert.notDeepEqual(a, b);
      assert.deepEqual(response.data.map((item) => item.index), [0, 1, 2]);
      assert.equal(response.usage.prompt_tokens, 2 * encode('alpha').length + encode('beta').length);
    }
  });

  test('dimensions truncates and re-normalises; too large or on ada-002 → 400', async () => {
    const full = await postJson<CreateEmbeddingResponse>('/embeddings', { model: 'text-embedding-3-small', input: 'x' });
    const short = await postJson<CreateEmbeddingResponse>('/embeddings', { model: 'text-embedding-3-small', input: 'x', dimensions: 256 });
    const vector = short.data[0]!.embedding;
    assert.equal(vector.length, 256);
    assert.ok(Math.abs(norm(vector) - 1) < 1e-5);
    const ratio = vector[0]! / full.data[0]!.embedding[0]!;
    assert.ok(vector.every((value, i) => Math.abs(value - full.data[0]!.embedding[i]! * ratio) < 1e-5));
    for (const body of [{ model: 'text-embedding-3-small', input: 'x', dimensions: 1537 }, { model: 'text-embedding-ada-002', input: 'x', dimensions: 256 }]) {
      const response = await post('/embeddings', body);
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as ErrorEnvelope).error.param, 'dimensions');
    }
  });

  test('base64 is little-endian float32 of exactly the float answer; token input embeds like its text', async () => {
    const body = { model: 'text-embedding-3-small', input: UTF8_SAMPLE };
    const floats = await postJson<CreateEmbeddingResponse>('/embeddings', { ...body, encoding_format: 'float' });
    const base64 = await postJson<{ data: { embedding: string }[] }>('/embeddings', { ...body, encoding_format: 'base64' });
    const bytes = Buffer.from(base64.data[0]!.embedding, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    assert.deepEqual(decoded, floats.data[0]!.embedding);
    const tokens = await postJson<CreateEmbeddingResponse>('/embeddings', { ...body, input: [encode(UTF8_SAMPLE)] });
    assert.deepEqual(tokens.data[0]!.embedding, floats.data[0]!.embedding);
    for (const input of ['', [], [999999999]]) assert.equal((await post('/embeddings', { model: 'text-embedding-3-small', input })).status, 400);
  });
});

describe('models', () => {
  test('list and retrieve; unknown model → 404 model_not_found', async () => {
    const headers = { authorization: `Bearer ${API_KEY}` };
    const list = (await (await fetch(`${sim.baseUrl}/models`, { headers })).json()) as { object: string; data: { id: string; object: string; owned_by: string }[] };
    assert.equal(list.object, 'list');
    const ids = list.data.map((model) => model.id);
    for (const id of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini', 'gpt-3.5-turbo-instruct', 'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002']) assert.ok(ids.includes(id), id);
    assert.ok(list.data.every((model) => model.object === 'model' && model.owned_by === 'openai'));
    const one = await fetch(`${sim.baseUrl}/models/gpt-4o`, { headers });
    assert.equal(((await one.json()) as { id: string }).id, 'gpt-4o');
    const missing = await fetch(`${sim.baseUrl}/models/gpt-9`, { headers });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as ErrorEnvelope).error.code, 'model_not_found');
  });
});

describe('official openai client', () => {
  // logLevel off: the SDK logs the malformed event before throwing, which is expected here.
  const client = (): OpenAI => new OpenAI({ apiKey: API_KEY, baseURL: sim.baseUrl, maxRetries: 0, logLevel: 'off' });

  test('chat.completions.create, with tools too', async () => {
    const completion = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi from the SDK' }] });
    assert.ok(completion.choices[0]?.message.content?.startsWith('Echo: Hi from the SDK'));
    const withTools = await client().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'weather' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    const call = withTools.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function' && call.function.arguments === '{"city":"sample"}');
  });

  test('streaming with include_usage, and the stream() helper accumulates tool calls', async () => {
    const stream = await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'stream via SDK' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: ChatCompletionChunk['usage'] = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    assert.ok(text.startsWith('Echo: stream via SDK') && text.includes(UTF8_SAMPLE));
    assert.equal(usage?.completion_tokens, encode(text).length);

    const runner = client().chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'in parallel' }], tools: [weatherTool, timeTool] as OpenAI.ChatCompletionTool[] });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0]?.message.tool_calls?.length, 2);
  });

  test('embeddings.create decodes the default base64 into the same floats as encoding_format "float"', async () => {
    const decoded = await client().embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'] });
    assert.equal((sim.requests.at(-1)?.body as { encoding_format?: string }).encoding_format, 'base64');
    const floats = await client().embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'], encoding_format: 'float' });
    assert.deepEqual(decoded.data, floats.data);
    assert.equal(decoded.data[0]?.embedding.length, 1536);
  });

  test('completions.create and models.list / retrieve', async () => {
    const completion = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 8 });
    assert.equal(completion.choices[0]?.finish_reason, 'length');
    assert.equal(completion.usage?.completion_tokens, 8);
    const ids: string[] = [];
    for await (const model of client().models.list()) ids.push(model.id);
    assert.ok(ids.includes('gpt-4o'));
    assert.equal((await client().models.retrieve('text-embedding-3-large')).id, 'text-embedding-3-large');
  });

  test('errors map to the SDK error classes; cut and malformed streams throw', async () => {
    await assert.rejects(new OpenAI({ apiKey: 'wrong', baseURL: sim.baseUrl, maxRetries: 0 }).models.list(), OpenAI.AuthenticationError);
    sim.enqueue({ kind: 'status', status: 429, retryAfterSeconds: 0 });
    await assert.rejects(client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.RateLimitError);
      assert.equal(error.code, 'rate_limit_exceeded');
      return true;
    });
    for (const scenario of [{ kind: 'cut-stream', afterChunks: 2 }, { kind: 'malformed-event' }] as const) {
      sim.enqueue(scenario);
      const stream = await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true });
      await assert.rejects(async () => {
        for await (const _chunk of stream) {
          // drain until the simulated failure surfaces
        }
      }, scenario.kind);
    }
  });
});
