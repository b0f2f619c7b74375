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
