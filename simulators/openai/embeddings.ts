// POST /v1/embeddings (protocols.md 2.2): deterministic unit vectors seeded by model + input text.
import { createPrng, hashString, isRecord } from '../_kit/http.ts';
import type { EndpointReply, PostEndpoint, ReplyContext } from './endpoint.ts';
import { invalidRequest, type SimulatedError } from './errors.ts';
import { countTokens, decodeTokens } from './text.ts';

const NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};
const OTHER_MODEL_DIMENSIONS = 768;
const MAX_INPUTS = 2048;

interface EmbeddingInput {
  text: string;
  tokens: number;
}

export const embeddingsEndpoint: PostEndpoint = {
  directiveText(body: unknown): string {
    if (!isRecord(body)) return '';
    const { input } = body;
    if (typeof input === 'string') return input;
    return Array.isArray(input) ? input.filter((item): item is string => typeof item === 'string').join('\n') : '';
  },
  reply(body: unknown, context: ReplyContext): EndpointReply {
    if (!isRecord(body)) return { kind: 'error', error: invalidRequest('The request body must be a JSON object.', null) };
    if (typeof body.model !== 'string' || body.model === '') return { kind: 'error', error: invalidRequest('you must provide a model parameter', 'model') };
    const inputs = readInputs(body.input);
    if (!Array.isArray(inputs)) return { kind: 'error', error: inputs };
    const model = body.model;
    const native = NATIVE_DIMENSIONS[model] ?? OTHER_MODEL_DIMENSIONS;
    const dimensions = readDimensions(body.dimensions, model, native);
    if (typeof dimensions !== 'number') return { kind: 'error', error: dimensions };
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      return { kind: 'error', error: invalidRequest("Invalid value for 'encoding_format': expected 'float' or 'base64'.", 'encoding_format') };
    }

    const data = inputs.map((input, index) => {
      const vector = embeddingVector(model, input.text, native, dimensions);
      return { object: 'embedding', index, embedding: format === 'base64' ? toBase64Float32(vector) : Array.from(vector) };
    });
    const promptTokens = context.plan.usage?.promptTokens ?? inputs.reduce((sum, input) => sum + input.tokens, 0);
    return {
      kind: 'json',
      body: {
        object: 'list',
        data,
        model,
        ...(context.plan.omitUsage ? {} : { usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } }),
      },
    };
  },
};

/**
 * The first `dimensions` values of a seeded native-size vector, scaled to unit length, as float32:
 * the JSON numbers are the exact float32 values, so `float` and decoded `base64` answers are equal.
 */
export function embeddingVector(model: string, text: string, native: number, dimensions: number): Float32Array {
  const random = createPrng(hashString(`${model}\n${text}`));
  const values = new Float64Array(Math.min(native, dimensions));
  let sumOfSquares = 0;
  for (let i = 0; i < values.length; i++) {
    const value = random() * 2 - 1;
    values[i] = value;
    sumOfSquares += value * value;
  }
  const norm = Math.sqrt(sumOfSquares) || 1;
  const vector = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) vector[i] = values[i]! / norm;
  return vector;
}

/** Raw little-endian IEEE-754 float32 bytes, base64-encoded (what `encoding_format: "base64"` returns). */
function toBase64Float32(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

function readInputs(value: unknown): EmbeddingInput[] | SimulatedError {
  if (value === undefined || value === null) return invalidRequest("Missing required parameter: 'input'.", 'input');
  if (typeof value === 'string') return value === '' ? invalidInput() : [{ text: value, tokens: countTokens(value) }];
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_INPUTS) return invalidInput();
  const items: unknown[] = value.every((item) => Number.isInteger(item)) ? [value] : value;
  const inputs: EmbeddingInput[] = [];
  for (const item of items) {
    if (typeof item === 'string' && item !== '') {
      inputs.push({ text: item, tokens: countTokens(item) });
      continue;
    }
    // Token ids are decoded so that a text and its tokens embed to the same vector.
    const isTokens = Array.isArray(item) && item.length > 0 && item.every((token) => Number.isInteger(token));
    const text = isTokens ? decodeTokens(item as number[]) : undefined;
    if (text === undefined) return invalidInput();
    inputs.push({ text, tokens: (item as number[]).length });
  }
  return inputs;
}

function invalidInput(): SimulatedError {
  return invalidRequest("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input');
}

function readDimensions(value: unknown, model: string, native: number): number | SimulatedError {
  if (value === undefined || value === null) return native;
  if (model === 'text-embedding-ada-002') return invalidRequest('This model does not support specifying dimensions.', 'dimensions');
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > native) {
    return invalidRequest(`Invalid value for 'dimensions': expected an integer between 1 and ${native}.`, 'dimensions');
  }
  return value;
}
