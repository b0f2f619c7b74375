import type { RerankResult } from '../../core/ir/media.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { RerankCodec } from '../../core/contracts/vendor-codec.ts';
import { mapOpenAIError } from './errors.ts';
import { utf8Text } from '../_kit/read.ts';

/**
 * Rerank on an OpenAI-compatible server that speaks the widely used `/v1/rerank` shape
 * (`{model, query, documents, top_n}` → `{results: [{index, relevance_score}], usage:
 * {total_tokens}}`). Documents are never asked back: the gateway has them.
 */
export const openaiRerank: RerankCodec = {
  prepare(call, target) {
    const body: Record<string, unknown> = { model: target.upstreamModel, query: call.query, documents: call.documents, return_documents: false };
    if (call.topN !== undefined) body.top_n = call.topN;
    return { path: '/rerank', body: JSON.stringify(body) };
  },
  decode(_call, _target, raw) {
    const json = JSON.parse(utf8Text(raw)) as { id?: unknown; results?: unknown; usage?: { total_tokens?: unknown; prompt_tokens?: unknown } };
    const tokens = Number(json.usage?.total_tokens ?? json.usage?.prompt_tokens ?? 0) || 0;
    const result: RerankResult = { results: readResults(json.results), tokens, searchUnits: 1 };
    if (typeof json.id === 'string') result.id = json.id;
    return { usage: { ...emptyUsage(), inputTokens: tokens, units: 1 }, result };
  },
  mapError: mapOpenAIError,
};

/** `[{index, relevance_score}]`, whatever else each item carries. */
export function readResults(value: unknown): RerankResult['results'] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((r): r is { index: number; relevance_score: number } => typeof r?.index === 'number' && typeof r?.relevance_score === 'number')
    .map((r) => ({ index: r.index, relevance_score: r.relevance_score }));
}
