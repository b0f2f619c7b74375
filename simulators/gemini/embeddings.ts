// :embedContent and :batchEmbedContents (protocols.md §5.4): deterministic unit vectors.
import { createPrng, hashString, isRecord } from '../_kit/http.ts';
import { invalidArgument, type SimulatedError } from './errors.ts';

const NATIVE_DIMENSIONS: Record<string, number> = { 'gemini-embedding-001': 3072, 'text-embedding-004': 768 };

function vector(text: string, dimensions: number): number[] {
  const random = createPrng(hashString(text));
  const values = Array.from({ length: dimensions }, () => random() * 2 - 1);
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => v / norm);
}

function embedOne(request: unknown, model: string): { values: number[] } | SimulatedError {
  if (!isRecord(request) || !isRecord(request.content) || !Array.isArray(request.content.parts)) return invalidArgument('* EmbedContentRequest.content: content is not specified');
  const text = request.content.parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  if (text === '') return invalidArgument('* EmbedContentRequest.content.parts: text must not be empty');
  const native = NATIVE_DIMENSIONS[model] ?? 768;
  const dimensions = typeof request.outputDimensionality === 'number' ? request.outputDimensionality : native;
  if (dimensions < 1 || dimensions > native) return invalidArgument(`* EmbedContentRequest.output_dimensionality: must be between 1 and ${native}`);
  return { values: vector(text, dimensions) };
}

export function embedContent(body: unknown, model: string): unknown {
  const embedding = embedOne(body, model);
  return 'status' in embedding ? embedding : { embedding };
}

export function batchEmbedContents(body: unknown, model: string): unknown {
  if (!isRecord(body) || !Array.isArray(body.requests) || body.requests.length === 0) return invalidArgument('* BatchEmbedContentsRequest.requests: requests is not specified');
  const embeddings = [];
  for (const [i, request] of body.requests.entries()) {
    if (isRecord(request) && request.model !== `models/${model}`) {
      return invalidArgument(`* BatchEmbedContentsRequest.requests[${i}].model: model must match the path (models/${model})`);
    }
    const embedding = embedOne(request, model);
    if ('status' in embedding) return embedding;
    embeddings.push(embedding);
  }
  return { embeddings };
}
