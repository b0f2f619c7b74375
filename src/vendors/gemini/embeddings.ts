import { invalidRequest } from '../../core/errors.ts';
import type { DecodedResponse, EmbeddingsCall, EmbeddingsCodec, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { countTextTokens } from '../../core/tokens/token-counter.ts';
import { asArray, asNumber, asObject, parseJsonBytes } from '../_kit/read.ts';
import { mapGeminiError } from './errors.ts';

/**
 * OpenAI embeddings → `batchEmbedContents` (protocols.md §5.4), answered in the OpenAI shape:
 * `dimensions` → `outputDimensionality`, base64 encoding done here (float32, little-endian, as
 * the OpenAI client decodes it). The vendor reports no token usage: the prompt is counted
 * locally and the usage row is marked estimated.
 */
export const geminiEmbeddings: EmbeddingsCodec = {
  prepare(call: EmbeddingsCall, target: TargetInfo): UpstreamRequest {
    const inputs = textInputs(call.body.input);
    const dimensions = typeof call.body.dimensions === 'number' ? { outputDimensionality: call.body.dimensions } : {};
    const model = `models/${target.upstreamModel}`;
    return {
      path: `/${model}:batchEmbedContents`,
      body: JSON.stringify({ requests: inputs.map((text) => ({ model, content: { parts: [{ text }] }, ...dimensions })) }),
    };
  },

  decode(call: EmbeddingsCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const embeddings = asArray(asObject(parseJsonBytes(raw))?.embeddings);
    const data = embeddings.map((item, index) => {
      const values = asArray(asObject(item)?.values).map((v) => asNumber(v) ?? 0);
      return { object: 'embedding', index, embedding: call.encodingFormat === 'base64' ? toBase64(values) : values };
    });
    const tokens = textInputs(call.body.input).reduce((sum, text) => sum + countTextTokens(text), 0);
    const body = { object: 'list', data, model: target.publicModel, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    return { body: JSON.stringify(body), contentType: 'application/json', usage: null };
  },

  mapError: mapGeminiError,
};

function textInputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  const items = asArray(input);
  if (!items.every((item): item is string => typeof item === 'string')) throw invalidRequest('input must be text (not token ids) for this model.', 'input');
  return items;
}

function toBase64(values: number[]): string {
  const floats = new Float32Array(values);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
