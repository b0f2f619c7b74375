/**
 * The JSON Schema of `POST /v1/responses` (contract §4), validated by Fastify's Ajv: types and
 * ranges of what the decoder reads, a 400 naming the field otherwise. Item and part kinds the IR
 * cannot carry are refused by name by the decoder; unknown top-level fields are allowed.
 */
import { MAX_MESSAGES, MAX_TOKENS_BOUND, modelSchema } from '../_kit/schema-bounds.ts';

const part = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    text: { type: 'string' },
    image_url: { type: 'string' },
    file_id: { type: ['string', 'null'] },
    file_data: { type: 'string' },
    file_url: { type: 'string' },
    filename: { type: 'string' },
    detail: { type: 'string' },
    refusal: { type: 'string' },
  },
} as const;

const item = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    role: { type: 'string', enum: ['user', 'assistant', 'system', 'developer'] },
    content: { type: ['string', 'array'], maxItems: 1024, items: part },
    call_id: { type: 'string' },
    name: { type: 'string' },
    arguments: { type: 'string' },
    output: { type: ['string', 'array'] },
    id: { type: 'string' },
  },
} as const;

const tool = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, name: { type: 'string' }, description: { type: ['string', 'null'] }, parameters: { type: ['object', 'null'] }, strict: { type: ['boolean', 'null'] } },
} as const;

export const responsesSchema = {
  type: 'object',
  required: ['model'],
  properties: {
    model: modelSchema,
    input: { type: ['string', 'array'], maxItems: MAX_MESSAGES, items: item },
    instructions: { type: ['string', 'null'] },
    stream: { type: ['boolean', 'null'] },
    store: { type: ['boolean', 'null'] },
    previous_response_id: { type: ['string', 'null'], minLength: 1, maxLength: 256 },
    tools: { type: 'array', maxItems: 512, items: tool },
    tool_choice: { type: ['string', 'object'] },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    text: {
      type: ['object', 'null'],
      properties: {
        format: {
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] }, name: { type: 'string' }, schema: { type: 'object' }, strict: { type: ['boolean', 'null'] }, description: { type: 'string' } },
        },
      },
    },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1, maximum: MAX_TOKENS_BOUND },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    reasoning: { type: ['object', 'null'], properties: { effort: { type: ['string', 'null'] }, summary: { type: ['string', 'null'], enum: ['auto', 'concise', 'detailed', 'none', null] } } },
    metadata: { type: ['object', 'null'], maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } },
    user: { type: 'string' },
    safety_identifier: { type: 'string' },
    service_tier: { type: ['string', 'null'] },
  },
} as const;
