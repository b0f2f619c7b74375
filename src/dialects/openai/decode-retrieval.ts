import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { ModerationCall, RerankCall, RerankResult } from '../../core/ir/media.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { requireKind } from '../_kit/model-rules.ts';

export const DEFAULT_MODERATION_MODEL = 'omni-moderation-latest';

/** Moderations: a string, an array of strings, or text/image parts; one result per input. */
export function decodeModeration(body: Record<string, unknown>, model: CatalogueModel): ModerationCall {
  requireKind(model, 'moderation', '/v1/moderations');
  const input = body.input;
  const items = typeof input === 'string' ? [input] : (input as unknown[]);
  items.forEach((item, i) => {
    const ok = typeof item === 'string' || (typeof item === 'object' && item !== null && ['text', 'image_url'].includes(String((item as { type?: unknown }).type)));
    if (!ok) throw invalidRequest(`input[${i}] must be a string or a {type: "text" | "image_url"} part.`, `input[${i}]`);
  });
  if (typeof input === 'string' && input.length === 0) throw invalidRequest('input must not be empty.', 'input');
  return { body: { ...body, model: model.id }, inputs: items.length };
}

/** Rerank: documents as strings (or `{text}` objects), `top_n` at most the number of documents. */
export function decodeRerank(body: Record<string, unknown>, model: CatalogueModel, count: TextCounter = countTextTokens): { call: RerankCall; tokens: number } {
  requireKind(model, 'rerank', '/v1/rerank');
  const documents = (body.documents as unknown[]).map((doc, i) => {
    if (typeof doc === 'string') return doc;
    const text = (doc as { text?: unknown }).text;
    if (typeof text === 'string') return text;
    throw invalidRequest(`documents[${i}] must be a string or {"text": string}.`, `documents[${i}]`);
  });
  const topN = body.top_n as number | undefined;
  const query = body.query as string;
  const tokens = count(query) * documents.length + documents.reduce((n, d) => n + count(d), 0);
  return { call: { query, documents, topN: topN === undefined ? undefined : Math.min(topN, documents.length), returnDocuments: body.return_documents === true }, tokens };
}

/** `{model, results: [{index, relevance_score}], usage}` — sorted best first, `top_n` kept. */
export function encodeRerank(result: RerankResult, call: RerankCall, model: string): string {
  const sorted = [...result.results].sort((a, b) => b.relevance_score - a.relevance_score).slice(0, call.topN ?? result.results.length);
  return JSON.stringify({
    ...(result.id !== undefined && { id: result.id }),
    object: 'list',
    model,
    results: sorted.map((r) => ({ index: r.index, relevance_score: r.relevance_score, ...(call.returnDocuments && { document: { text: call.documents[r.index] } }) })),
    usage: { total_tokens: result.tokens, search_units: result.searchUnits },
  });
}
