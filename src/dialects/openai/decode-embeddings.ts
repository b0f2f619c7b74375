import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { EmbeddingsCall } from '../../core/contracts/vendor-codec.ts';
import type { OffLoopCounter } from '../../core/contracts/token-counter.ts';
import type { TextCounter } from '../../core/tokens/token-counter.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';

const MAX_INPUT_TOKENS = 8192;

/**
 * Embedding rules of the specification: at most 2048 inputs (schema), each at most 8192
 * tokens and not empty; `dimensions` only where the model supports it and not above its size.
 * `count` is the request's counter (see OffLoopCounter.counterFor); when the texts were too long
 * to tokenise it is `offLoop.boundCounter`, which only bounds them, and an input's length is then
 * left for the vendor to judge.
 */
export function decodeEmbeddings(body: Record<string, unknown>, model: CatalogueModel, count: TextCounter, offLoop: Pick<OffLoopCounter, 'boundCounter'>): Decoded<EmbeddingsCall> {
  const inputs = normalise(body.input);
  let inputTokens = 0;
  inputs.forEach((input, i) => {
    const tokens = typeof input === 'string' ? count(input) : input.length;
    const param = Array.isArray(body.input) && inputs.length > 1 ? `input[${i}]` : 'input';
    if (tokens === 0) throw invalidRequest(`${param} must not be empty`, param);
    if (tokens > MAX_INPUT_TOKENS && count !== offLoop.boundCounter) {
      throw invalidRequest(`${param} has ${tokens} tokens; each input may have at most ${MAX_INPUT_TOKENS}`, param);
    }
    inputTokens += tokens;
  });

  if (body.dimensions !== undefined) {
    const native = typeof model.capabilities.dimensions === 'number' ? model.capabilities.dimensions : undefined;
    if (model.capabilities.supports_dimensions === false) {
      throw invalidRequest(`dimensions is only supported by the text-embedding-3 models, not ${model.id}`, 'dimensions');
    }
    if (native !== undefined && (body.dimensions as number) > native) {
      throw invalidRequest(`dimensions must be at most ${native} for ${model.id}`, 'dimensions');
    }
  }
  return {
    model: body.model as string,
    stream: false,
    call: { body, encodingFormat: body.encoding_format === 'base64' ? 'base64' : 'float' },
    estimate: { inputTokens, outputTokens: 0 },
  };
}

/** Inputs as texts or token-id arrays; anything else is a 400 naming the element. */
function normalise(input: unknown): Array<string | number[]> {
  if (typeof input === 'string') return [input];
  const items = input as unknown[];
  if (items.length === 0) throw invalidRequest('input must not be an empty array', 'input');
  if (items.every((x) => typeof x === 'number')) return [checkTokenIds(items as number[], 'input')];
  return items.map((item, i) => {
    if (typeof item === 'string') return item;
    if (Array.isArray(item) && item.every((x) => typeof x === 'number')) return checkTokenIds(item as number[], `input[${i}]`);
    throw invalidRequest(`input[${i}] must be a string or an array of token ids`, `input[${i}]`);
  });
}

function checkTokenIds(ids: number[], param: string): number[] {
  if (!ids.every((x) => Number.isInteger(x) && x >= 0)) throw invalidRequest(`${param} must contain non-negative integer token ids`, param);
  return ids;
}
