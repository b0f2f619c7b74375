/**
 * JSON Schemas for the OpenAI-compatible endpoints (validated by Fastify's Ajv, compiled once).
 * They check types and the specification's ranges; unknown fields are allowed and passed
 * through to the vendor. Written as plain JSON Schema: `type: [x, "null"]` reports clearer
 * errors than unions do. What passes is exactly the shape the converters read: every number
 * that reaches pricing is a bounded integer, every content part carries its object.
 */

import { MAX_MESSAGES, MAX_TOKENS_BOUND, modelSchema } from '../_kit/schema-bounds.ts';

const nullableNumber = (minimum: number, maximum: number) => ({ type: ['number', 'null'], minimum, maximum }) as const;
const nullableInteger = (minimum: number, maximum: number) => ({ type: ['integer', 'null'], minimum, maximum }) as const;
const tokenCap = (minimum: number) => nullableInteger(minimum, MAX_TOKENS_BOUND);

const stop = {
  type: ['string', 'array', 'null'],
  maxItems: 4,
  items: { type: 'string' },
} as const;

const requiredFor = (type: string, field: string) => ({ if: { properties: { type: { const: type } } }, then: { required: [field] } }) as const;

/**
 * A content part: `type` and, for the kinds the converters read, its object (`image_url.url`,
 * `input_audio.data`/`format`, `file`…). Parts of other types pass and are refused by name by the
 * families that cannot carry them.
 */
const contentPart = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    text: { type: 'string' },
    refusal: { type: 'string' },
    image_url: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, detail: { type: 'string' } } },
    input_audio: { type: 'object', required: ['data', 'format'], properties: { data: { type: 'string' }, format: { type: 'string' } } },
    file: { type: 'object', properties: { file_data: { type: 'string' }, file_id: { type: 'string' }, filename: { type: 'string' } } },
  },
  allOf: [requiredFor('text', 'text'), requiredFor('refusal', 'refusal'), requiredFor('image_url', 'image_url'), requiredFor('input_audio', 'input_audio'), requiredFor('file', 'file')],
} as const;

const toolCall = {
  type: 'object',
  required: ['id', 'function'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    function: { type: 'object', required: ['name', 'arguments'], properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
  },
} as const;

export const chatCompletionSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: modelSchema,
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MESSAGES,
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
          content: { type: ['string', 'array', 'null'], maxItems: 1024, items: contentPart },
          name: { type: 'string' },
          tool_call_id: { type: 'string' },
          tool_calls: { type: 'array', maxItems: 1024, items: toolCall },
          refusal: { type: ['string', 'null'] },
        },
      },
    },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    temperature: nullableNumber(0, 2),
    top_p: nullableNumber(0, 1),
    presence_penalty: nullableNumber(-2, 2),
    frequency_penalty: nullableNumber(-2, 2),
    stop,
    max_tokens: tokenCap(1),
    max_completion_tokens: tokenCap(1),
    n: nullableInteger(1, 128),
    seed: { type: ['integer', 'null'] },
    user: { type: 'string' },
    safety_identifier: { type: 'string' },
    reasoning_effort: { type: ['string', 'null'] },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: nullableInteger(0, 20),
    tools: {
      type: 'array',
      maxItems: 128,
      items: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { type: 'string' },
          function: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', minLength: 1, maxLength: 64 }, description: { type: 'string' }, parameters: { type: 'object' }, strict: { type: ['boolean', 'null'] } },
          },
        },
      },
    },
    // "auto" | "none" | "required" or an object naming a tool; the object form is checked in decode
    tool_choice: { type: ['string', 'object'] },
    parallel_tool_calls: { type: 'boolean' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, schema: { type: 'object' }, strict: { type: ['boolean', 'null'] } } },
      },
    },
    modality: { type: 'string', enum: ['text', 'image'] },
  },
} as const;

export const completionSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model: modelSchema,
    prompt: { type: ['string', 'array'], maxItems: 2048, items: { type: ['string', 'integer', 'array'], items: { type: 'integer' } } },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: tokenCap(0),
    temperature: nullableNumber(0, 2),
    top_p: nullableNumber(0, 1),
    presence_penalty: nullableNumber(-2, 2),
    frequency_penalty: nullableNumber(-2, 2),
    stop,
    n: nullableInteger(1, 128),
    best_of: nullableInteger(1, 20),
    logprobs: nullableInteger(0, 5),
    seed: { type: ['integer', 'null'] },
    echo: { type: ['boolean', 'null'] },
    suffix: { type: ['string', 'null'] },
  },
} as const;

export const embeddingSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: modelSchema,
    // items are checked by the decoder (a 400 naming input[i])
    input: { type: ['string', 'array'], maxItems: 2048 },
    dimensions: { type: 'integer', minimum: 1, maximum: 65_536 },
    encoding_format: { type: 'string', enum: ['float', 'base64'] },
    user: { type: 'string' },
  },
} as const;
