// The OpenAI-compatible JSON routes: valid bodies (small: most requests are cheap) and the fields
// whose type the contract fixes.
import fc from 'fast-check';
import type { RouteSpec } from './mutate.ts';

const WORDS = ['hello', 'world', 'the', 'quick', 'fox', 'ledger', 'gateway', 'cat', 'river', 'one', 'two', '🙂', 'été', '数据'];
export const text = (maxWords = 8): fc.Arbitrary<string> => fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: maxWords }).map((w) => w.join(' '));

export const CHAT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-5', 'gemini-3-flash-preview'] as const;
export const EMBEDDING_MODELS = ['text-embedding-3-small', 'text-embedding-ada-002'] as const;

const userMessage = fc.oneof(
  text().map((content) => ({ role: 'user', content })),
  text().map((t) => ({ role: 'user', content: [{ type: 'text', text: t }] })),
);

/** Content parts, tool calls and options of the right outline that lack or mistype what the converters read. */
export const chatShapes = fc
  .record({
    model: fc.constantFrom(...CHAT_MODELS),
    part: fc.constantFrom<unknown>(
      { type: 'image_url' },
      { type: 'image_url', image_url: 'http://example.test/a.png' },
      { type: 'image_url', image_url: { url: 42 } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,!!!' } },
      { type: 'image_url', image_url: { url: 'data:;base64,' } },
      { type: 'input_audio' },
      { type: 'input_audio', input_audio: { data: 'x', format: 'mp3' } },
      { type: 'text' },
      { type: 'text', text: 5 },
      { type: 'file' },
      { type: 'file', file: { file_data: 5 } },
      { type: 'refusal' },
      { type: 'no-such-part' },
    ),
    extra: fc.constantFrom<Record<string, unknown>>(
      {},
      { tools: [{ type: 'function' }] },
      { tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
      { tool_choice: { type: 'function' } },
      { tool_choice: { type: 'function', function: {} } },
      { tool_choice: 'sometimes' },
      { response_format: { type: 'json_schema' } },
      { response_format: { type: 'json_schema', json_schema: 5 } },
      { max_tokens: 2 ** 31 },
      { max_tokens: 1e308 },
      { max_completion_tokens: 2 ** 53 + 1 },
      { n: 128 },
      { logit_bias: { '1': 1e308 } },
      { stream: true, stream_options: { include_usage: 'yes' } },
    ),
    history: fc.constantFrom<unknown[]>(
      [],
      [{ role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'x' }],
      [{ role: 'assistant', tool_calls: [{}] }],
      [{ role: 'assistant', tool_calls: [{ id: 'c', function: null }] }],
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'mgx_forged.AAAA', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'mgx_forged.AAAA', content: [{ type: 'image_url' }] }],
      [{ role: 'tool', content: 'an orphan result' }],
      [{ role: 'function', name: 5, content: 'x' }],
    ),
  })
  .map(({ model, part, extra, history }) => ({
    body: { model, max_tokens: 8, ...extra, messages: [{ role: 'user', content: 'hi' }, ...history, { role: 'user', content: [part] }] },
    mutation: `content part ${JSON.stringify(part)}, ${JSON.stringify(extra)}, history of ${history.length}`,
  }));

const chat: RouteSpec = {
  route: 'chat',
  method: 'POST',
  path: '/v1/chat/completions',
  dialect: 'openai',
  valid: fc
    .record({
      model: fc.constantFrom(...CHAT_MODELS),
      system: fc.option(text(), { nil: undefined }),
      user: userMessage,
      max_tokens: fc.integer({ min: 1, max: 16 }),
      temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
      stream: fc.boolean(),
    })
    .map(({ model, system, user, max_tokens, temperature, stream }) => ({
      body: {
        model,
        messages: [...(system ? [{ role: 'system', content: system }] : []), user],
        max_tokens,
        ...(temperature !== undefined && { temperature }),
        ...(stream && { stream: true, stream_options: { include_usage: true } }),
      },
      tokenPriced: { model, usage: 'openai' as const, stream },
    })),
  typed: {
    model: ['string'],
    messages: ['array'],
    'messages[0]': ['object'],
    'messages[0].role': ['string'],
    'messages[0].content': ['string', 'array', 'null'],
    max_tokens: ['integer', 'null'],
    temperature: ['number', 'null'],
    top_p: ['number', 'null'],
    n: ['integer', 'null'],
    stream: ['boolean', 'null'],
    stop: ['string', 'array', 'null'],
    tools: ['array'],
    response_format: ['object'],
  },
  wrongModels: ['text-embedding-3-small', 'tts-1', 'image-a-2', 'whisper-1'],
  shapes: chatShapes,
};

const completions: RouteSpec = {
  route: 'completions',
  method: 'POST',
  path: '/v1/completions',
  dialect: 'openai',
  valid: fc.record({ prompt: text(), max_tokens: fc.integer({ min: 1, max: 16 }) }).map(({ prompt, max_tokens }) => ({
    body: { model: 'gpt-3.5-turbo-instruct', prompt, max_tokens },
    tokenPriced: { model: 'gpt-3.5-turbo-instruct', usage: 'openai' as const, stream: false },
  })),
  typed: { model: ['string'], prompt: ['string', 'array'], max_tokens: ['integer', 'null'], temperature: ['number', 'null'], echo: ['boolean', 'null'], n: ['integer', 'null'] },
  wrongModels: ['text-embedding-3-small', 'tts-1'],
};

const embeddings: RouteSpec = {
  route: 'embeddings',
  method: 'POST',
  path: '/v1/embeddings',
  dialect: 'openai',
  valid: fc.record({ model: fc.constantFrom(...EMBEDDING_MODELS), input: fc.oneof(text(), fc.array(text(4), { minLength: 1, maxLength: 3 })) }).map(({ model, input }) => ({
    body: { model, input },
    tokenPriced: { model, usage: 'embeddings' as const, stream: false },
  })),
  typed: { model: ['string'], input: ['string', 'array'], dimensions: ['integer'], encoding_format: ['string'] },
  wrongModels: ['gpt-4o-mini', 'tts-1', 'image-a-3'],
};

const moderations: RouteSpec = {
  route: 'moderations',
  method: 'POST',
  path: '/v1/moderations',
  dialect: 'openai',
  valid: fc.oneof(text(), fc.array(text(3), { minLength: 1, maxLength: 3 })).map((input) => ({ body: { model: 'omni-moderation-latest', input } })),
  typed: { model: ['string'], input: ['string', 'array'] },
  wrongModels: ['gpt-4o-mini', 'text-embedding-3-small'],
  kindChecked: true,
};

const images: RouteSpec = {
  route: 'images',
  method: 'POST',
  path: '/v1/images/generations',
  dialect: 'openai',
  valid: fc
    .record({ model: fc.constantFrom('image-a-2', 'image-a-3'), prompt: text(), format: fc.constantFrom('url', 'b64_json') })
    .map(({ model, prompt, format }) => ({ body: { model, prompt, n: 1, size: model === 'image-a-2' ? '256x256' : '1024x1024', response_format: format } })),
  typed: { model: ['string'], prompt: ['string'], n: ['integer', 'null'], size: ['string', 'null'], response_format: ['string', 'null'] },
  wrongModels: ['gpt-4o-mini', 'tts-1', 'sora-2'],
  kindChecked: true,
};

const speech: RouteSpec = {
  route: 'speech',
  method: 'POST',
  path: '/v1/audio/speech',
  dialect: 'openai',
  valid: fc.record({ model: fc.constantFrom('tts-1', 'tts-1-hd'), input: text(5), format: fc.constantFrom('mp3', 'wav', 'pcm') }).map(({ model, input, format }) => ({ body: { model, input, voice: 'alloy', response_format: format } })),
  typed: { model: ['string'], input: ['string'], voice: ['string'], speed: ['number'], response_format: ['string'] },
  wrongModels: ['gpt-4o-mini', 'whisper-1'],
  kindChecked: true,
};

const rerank: RouteSpec = {
  route: 'rerank',
  method: 'POST',
  path: '/v1/rerank',
  dialect: 'openai',
  valid: fc
    .record({ model: fc.constantFrom('jina-reranker-v2-base-multilingual', 'rerank-v3.5'), query: text(4), documents: fc.array(text(5), { minLength: 1, maxLength: 4 }) })
    .map(({ model, query, documents }) => ({ body: { model, query, documents, top_n: 1 } })),
  typed: { model: ['string'], query: ['string'], documents: ['array'], top_n: ['integer'], return_documents: ['boolean'] },
  wrongModels: ['gpt-4o-mini', 'text-embedding-3-small'],
  kindChecked: true,
};

const videos: RouteSpec = {
  route: 'videos',
  method: 'POST',
  path: '/v1/videos',
  dialect: 'openai',
  valid: text().map((prompt) => ({ body: { model: 'sora-2', prompt } })),
  typed: { model: ['string'], prompt: ['string'], seconds: ['string', 'integer'], size: ['string'] },
  wrongModels: ['gpt-4o-mini', 'image-a-3'],
  kindChecked: true,
};

export const OPENAI_ROUTES: readonly RouteSpec[] = [chat, completions, embeddings, moderations, images, speech, rerank, videos];

/** GET /v1/models and /v1/models/{id} with odd ids. */
export const modelsArbitrary = fc.oneof(
  fc.constant({ path: '/v1/models', mutation: 'list' }),
  fc.constantFrom('gpt-4o-mini', 'no-such-model', '%00', '..%2F..%2Fadmin', 'a'.repeat(3000), '%F0%9F%99%82', '%ED%A0%80').map((id) => ({ path: `/v1/models/${id}`, mutation: `model id ${id.slice(0, 40)}` })),
);

