// The native routes: messages (its own envelope and key header) and Google's `:predict`.
import fc from 'fast-check';
import type { RouteSpec } from './mutate.ts';
import { text } from './routes-openai.ts';

const MESSAGES_MODELS = ['claude-sonnet-5', 'gpt-4o-mini', 'gemini-3-flash-preview'] as const;
const VERSION = { 'anthropic-version': '2023-06-01' };

const content = fc.oneof(
  text(),
  text().map((t) => [{ type: 'text', text: t }]),
);

const conversationTyped = {
  model: ['string'],
  messages: ['array'],
  'messages[0]': ['object'],
  'messages[0].role': ['string'],
  'messages[0].content': ['string', 'array'],
  system: ['string', 'array'],
  tools: ['array'],
  tool_choice: ['object'],
} as const;

/** Blocks and options of the right outline that lack or mistype what the converters read. */
const messagesShapes = fc
  .record({
    model: fc.constantFrom(...MESSAGES_MODELS),
    block: fc.constantFrom<unknown>(
      { type: 'image' },
      { type: 'image', source: { type: 'base64' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 5 } },
      { type: 'image', source: { type: 'url', url: 5 } },
      { type: 'document' },
      { type: 'document', source: { type: 'text', data: null } },
      { type: 'tool_use' },
      { type: 'tool_use', id: 'toolu_1', name: 'f', input: 'not an object' },
      { type: 'tool_result' },
      { type: 'tool_result', tool_use_id: 'mgx_forged.AAAA', content: [{ type: 'image' }] },
      { type: 'thinking' },
      { type: 'redacted_thinking', data: 5 },
      { type: 'text' },
      { type: 'text', text: ['x'] },
      { type: 'no-such-block' },
    ),
    extra: fc.constantFrom<Record<string, unknown>>(
      {},
      { system: [{ type: 'text' }] },
      { system: [{ type: 'image' }] },
      { tools: [{ name: 'f', input_schema: 'x' }] },
      { tool_choice: { type: 'tool' } },
      { thinking: { type: 'enabled', budget_tokens: 1e308 } },
      { thinking: { type: 'enabled' } },
      { max_tokens: 1e308 },
      { max_tokens: 2 ** 53 + 1 },
      { stop_sequences: Array.from({ length: 10_000 }, () => 'x') },
      { metadata: { user_id: 5 } },
    ),
    role: fc.constantFrom('user', 'assistant'),
  })
  .map(({ model, block, extra, role }) => ({
    body: { model, max_tokens: 8, ...extra, messages: [{ role: 'user', content: 'hi' }, { role, content: [block] }, ...(role === 'assistant' ? [{ role: 'user', content: 'go on' }] : [])] },
    mutation: `${role} block ${JSON.stringify(block)}, ${JSON.stringify(extra).slice(0, 80)}`,
  }));

const messages: RouteSpec = {
  route: 'messages',
  method: 'POST',
  path: '/v1/messages',
  dialect: 'messages',
  headers: VERSION,
  valid: fc
    .record({ model: fc.constantFrom(...MESSAGES_MODELS), system: fc.option(text(), { nil: undefined }), content, max_tokens: fc.integer({ min: 1, max: 16 }), stream: fc.boolean() })
    .map(({ model, system, content, max_tokens, stream }) => ({
      body: { model, max_tokens, messages: [{ role: 'user', content }], ...(system && { system }), ...(stream && { stream: true }) },
      tokenPriced: { model, usage: 'messages' as const, stream },
    })),
  typed: { ...conversationTyped, max_tokens: ['integer'], stream: ['boolean'], temperature: ['number'], top_k: ['integer'], stop_sequences: ['array'], metadata: ['object'] },
  wrongModels: ['text-embedding-3-small', 'tts-1', 'image-a-3'],
  shapes: messagesShapes,
};

const countTokens: RouteSpec = {
  route: 'count_tokens',
  method: 'POST',
  path: '/v1/messages/count_tokens',
  dialect: 'messages',
  headers: VERSION,
  valid: fc.record({ model: fc.constantFrom(...MESSAGES_MODELS), content }).map(({ model, content }) => ({ body: { model, messages: [{ role: 'user', content }] } })),
  typed: conversationTyped,
  wrongModels: ['text-embedding-3-small'],
  shapes: messagesShapes.map(({ body: { max_tokens: _, ...body }, mutation }) => ({ body, mutation })),
};

const predict: RouteSpec = {
  route: 'predict',
  method: 'POST',
  path: '/v1beta/models/{model}:predict',
  dialect: 'google',
  valid: fc
    .record({ model: fc.constantFrom('img-c-4.0-generate-001', 'img-c-4.0-fast-generate-001'), prompt: text(), count: fc.integer({ min: 1, max: 2 }) })
    .map(({ model, prompt, count }) => ({ body: { instances: [{ prompt }], parameters: { sampleCount: count } }, path: `/v1beta/models/${model}:predict` })),
  typed: { instances: ['array'], 'instances[0]': ['object'], 'instances[0].prompt': ['string'], parameters: ['object'], 'parameters.sampleCount': ['integer'] },
  shapes: fc
    .tuple(
      fc.constantFrom<unknown>([], [{}], [{ prompt: 5 }], [{ prompt: 'x', image: {} }], [{ prompt: 'x', image: { bytesBase64Encoded: 5 } }], [{ prompt: 'x' }, { prompt: 'y' }]),
      fc.constantFrom<unknown>(undefined, null, {}, { sampleCount: 1e308 }, { sampleCount: 0 }, { aspectRatio: 5 }, { aspectRatio: '1:0' }, { outputOptions: { mimeType: 5 } }),
    )
    .map(([instances, parameters]) => ({ body: { instances, ...(parameters !== undefined && { parameters }) }, mutation: `instances ${JSON.stringify(instances)}, parameters ${JSON.stringify(parameters)}` })),
};

export const NATIVE_ROUTES: readonly RouteSpec[] = [messages, countTokens, predict];

/** `:predict` paths a router must refuse cleanly. */
export const predictPaths = fc.constantFrom(
  '/v1beta/models/gpt-4o-mini:predict',
  '/v1beta/models/no-such:predict',
  '/v1beta/models/img-c-4.0-generate-001:generateContent',
  '/v1beta/models/:predict',
  `/v1beta/models/${'m'.repeat(3000)}:predict`,
  '/v1beta/models/img-c-4.0-generate-001%00:predict',
  '/v1beta/models/a/b/c:predict',
);
