/**
 * JSON Schemas of the native messages endpoints (protocols.md §3.1, §3.6), validated by
 * Fastify's Ajv. Types, ranges and the content blocks' shapes (what the bridge and the local
 * token count read); unknown fields and block types are allowed (and passed through to a native
 * upstream, or refused by name by the bridge).
 */
import { MAX_MESSAGES, MAX_TOKENS_BOUND, modelSchema } from '../_kit/schema-bounds.ts';

const requiredFor = (type: string, fields: string[]) => ({ if: { properties: { type: { const: type } }, required: ['type'] }, then: { required: fields } }) as const;

/** An image or document source: base64 needs media_type and data, url its url, text its data. */
const source = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, media_type: { type: 'string' }, data: { type: 'string' }, url: { type: 'string' }, file_id: { type: 'string' } },
  allOf: [requiredFor('base64', ['media_type', 'data']), requiredFor('url', ['url']), requiredFor('text', ['data'])],
} as const;

const blockProperties = {
  type: { type: 'string' },
  text: { type: 'string' },
  source,
  title: { type: ['string', 'null'] },
  id: { type: 'string' },
  name: { type: 'string' },
  input: { type: 'object' },
  thinking: { type: 'string' },
  signature: { type: 'string' },
  is_error: { type: 'boolean' },
} as const;

const blockRules = [requiredFor('text', ['text']), requiredFor('image', ['source']), requiredFor('document', ['source']), requiredFor('tool_use', ['id', 'name', 'input'])] as const;

/** A block inside a tool_result (text, image…). */
const innerBlock = { type: 'object', required: ['type'], properties: blockProperties, allOf: blockRules } as const;

const block = {
  type: 'object',
  required: ['type'],
  properties: {
    ...blockProperties,
    tool_use_id: { type: 'string' },
    content: { type: ['string', 'array'], maxItems: 1024, items: innerBlock },
  },
  allOf: [...blockRules, requiredFor('tool_result', ['tool_use_id'])],
} as const;

const content = { type: ['string', 'array'], maxItems: 1024, items: block } as const;

const conversation = {
  model: modelSchema,
  messages: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_MESSAGES,
    items: {
      type: 'object',
      required: ['role', 'content'],
      properties: { role: { type: 'string', enum: ['user', 'assistant', 'system'] }, content },
    },
  },
  system: content,
  tools: {
    type: 'array',
    maxItems: 128,
    items: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 128 }, type: { type: 'string' }, description: { type: 'string' }, input_schema: { type: 'object' } },
    },
  },
  tool_choice: {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: ['auto', 'any', 'tool', 'none'] }, name: { type: 'string' }, disable_parallel_tool_use: { type: 'boolean' } },
    allOf: [requiredFor('tool', ['name'])],
  },
  thinking: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, budget_tokens: { type: 'integer', minimum: 0, maximum: MAX_TOKENS_BOUND } } },
  output_config: {
    type: 'object',
    properties: { format: { type: 'object', properties: { type: { type: 'string' }, schema: { type: 'object' } } }, effort: { type: 'string' } },
  },
} as const;

export const messagesSchema = {
  type: 'object',
  required: ['model', 'max_tokens', 'messages'],
  properties: {
    ...conversation,
    max_tokens: { type: 'integer', minimum: 1, maximum: MAX_TOKENS_BOUND },
    stream: { type: 'boolean' },
    stop_sequences: { type: 'array', maxItems: 256, items: { type: 'string' } },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 0, maximum: MAX_TOKENS_BOUND },
    metadata: { type: 'object', properties: { user_id: { type: ['string', 'null'] } } },
  },
} as const;

export const countTokensSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: conversation,
} as const;
