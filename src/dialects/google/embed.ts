import { invalidRequest } from '../../core/errors.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';
import type { EmbeddingsCall } from '../../core/contracts/vendor-codec.ts';
import type { TextCounter } from '../../core/tokens/token-counter.ts';

type Json = Record<string, unknown>;

export const embedContentSchema = {
  type: 'object',
  properties: { content: { type: 'object', properties: { parts: { type: 'array', minItems: 1, items: { type: 'object' } } }, required: ['parts'] }, outputDimensionality: { type: 'integer', minimum: 1 }, taskType: { type: 'string' }, title: { type: 'string' } },
  required: ['content'],
} as const;

export const batchEmbedSchema = {
  type: 'object',
  properties: { requests: { type: 'array', minItems: 1, maxItems: 2048, items: embedContentSchema } },
  required: ['requests'],
} as const;

/**
 * `embedContent` / `batchEmbedContents` → the embeddings operation (one input per request, the
 * texts of its parts joined), served by any family that embeds; `outputDimensionality` →
 * `dimensions` (one value for the batch). The answer is rewritten from the operation's list.
 */
export function decodeEmbed(requests: readonly Json[], model: string, count: TextCounter, single: boolean): Decoded<EmbeddingsCall> {
  const param = (i: number) => (single ? 'content' : `requests[${i}].content`);
  const input = requests.map((request, i) => {
    const parts = (request.content as { parts: Json[] }).parts;
    const text = parts.map((part, j) => {
      if (typeof part.text !== 'string') throw invalidRequest('Only text parts can be embedded here.', `${param(i)}.parts[${j}]`);
      return part.text;
    }).join('\n');
    if (text === '') throw invalidRequest(`${param(i)} must not be empty.`, param(i));
    return text;
  });
  const dimensions = requests.map((request) => request.outputDimensionality).filter((value) => value !== undefined);
  if (new Set(dimensions).size > 1) throw invalidRequest('Every request of a batch must ask for the same outputDimensionality here.', 'requests');
  const body: Json = { model, input, ...(dimensions.length > 0 && { dimensions: dimensions[0] }) };
  const inputTokens = input.reduce((sum, text) => sum + count(text), 0);
  return {
    model,
    stream: false,
    call: { body, encodingFormat: 'float' },
    estimate: { inputTokens, outputTokens: 0 },
    answer: (list: string | Uint8Array) => answerOf(list, single),
  };
}

/** The operation's `{data: [{embedding}]}` → `{embedding: {values}}` or `{embeddings: [{values}]}`. */
function answerOf(list: string | Uint8Array, single: boolean): string {
  const text = typeof list === 'string' ? list : Buffer.from(list).toString('utf8');
  const data = ((JSON.parse(text) as { data?: Array<{ embedding: number[]; index: number }> }).data ?? []).sort((a, b) => a.index - b.index);
  const values = data.map((item) => ({ values: item.embedding }));
  return JSON.stringify(single ? { embedding: values[0] ?? { values: [] } } : { embeddings: values });
}
