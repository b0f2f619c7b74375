/**
 * JSON Schemas for the OpenAI-compatible endpoints (validated by Fastify's Ajv, compiled once).
 * They check types and the specification's ranges; unknown fields are allowed and passed
 * through to the vendor. Written as plain JSON Schema: `type: [x, "null"]` reports clearer
 * errors than unions do.
 */

const nullableNumber = (minimum: number, maximum: number) => ({ type: ['number', 'null'], minimum, maximum }) as const;
const nullableInteger = (minimum: number, maximum?: number) =>
  ({ type: ['integer', 'null'], minimum, ...(maximum !== undefined && { maximum }) }) as const;

const stop = {
  type: ['string', 'array', 'null'],
  maxItems: 4,
  items: { type: 'string' },
} as const;

export const chatCompletionSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
          content: { type: ['string', 'array', 'null'], items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
          name: { type: 'string' },
          tool_call_id: { type: 'string' },
          tool_calls: { type: 'array' },
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
    max_tokens: nullableInteger(1),
    max_completion_tokens: nullableInteger(1),
    n: nullableInteger(1, 128),
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
          function: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 64 } } },
        },
      },
    },
    // "auto" | "none" | "required" or an object naming a tool; the object form is checked in decode
    tool_choice: { type: ['string', 'object'] },
    parallel_tool_calls: { type: 'boolean' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] } },
    },
    modality: { type: 'string', enum: ['text', 'image'] },
  },
} as const;

export const completionSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    prompt: { type: ['string', 'array'] },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: nullableInteger(0),
    temperature: nullableNumber(0, 2),
    top_p: nullableNumber(0, 1),
    presence_penalty: nullableNumber(-2, 2),
    frequency_penalty: nullableNumber(-2, 2),
    stop,
    n: nullableInteger(1, 128),
    best_of: nullableInteger(1, 20),
    logprobs: nullableInteger(0, 5),
    echo: { type: ['boolean', 'null'] },
    suffix: { type: ['string', 'null'] },
  },
} as const;

export const embeddingSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    input: { type: ['string', 'array'], maxItems: 2048 },
    dimensions: { type: 'integer', minimum: 1 },
    encoding_format: { type: 'string', enum: ['float', 'base64'] },
    user: { type: 'string' },
  },
} as const;
