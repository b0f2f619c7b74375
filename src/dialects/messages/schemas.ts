/**
 * JSON Schemas of the native messages endpoints (protocols.md §3.1, §3.6), validated by
 * Fastify's Ajv. Types and ranges only; unknown fields are allowed (and passed through to a
 * native upstream).
 */
const content = {
  type: ['string', 'array'],
  items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
} as const;

const conversation = {
  model: { type: 'string', minLength: 1, maxLength: 256 },
  messages: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['role', 'content'],
      properties: { role: { type: 'string', enum: ['user', 'assistant', 'system'] }, content },
    },
  },
  system: content,
  tools: {
    type: 'array',
    items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 128 }, type: { type: 'string' } } },
  },
  tool_choice: {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: ['auto', 'any', 'tool', 'none'] }, name: { type: 'string' }, disable_parallel_tool_use: { type: 'boolean' } },
  },
  thinking: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, budget_tokens: { type: 'integer', minimum: 0 } } },
} as const;

export const messagesSchema = {
  type: 'object',
  required: ['model', 'max_tokens', 'messages'],
  properties: {
    ...conversation,
    max_tokens: { type: 'integer', minimum: 0 },
    stream: { type: 'boolean' },
    stop_sequences: { type: 'array', items: { type: 'string' } },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 0 },
    metadata: { type: 'object', properties: { user_id: { type: ['string', 'null'] } } },
  },
} as const;

export const countTokensSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: conversation,
} as const;
