import type { RerankResult } from '../../core/ir/media.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { RerankCodec } from '../../core/contracts/vendor-codec.ts';
import { mapCohereError } from './errors.ts';
import { utf8Text } from '../_kit/read.ts';

interface RerankAnswer {
  id?: unknown;
  results?: Array<{ index?: unknown; relevance_score?: unknown }>;
  meta?: { billed_units?: { search_units?: unknown } };
}

/** Rerank v2 (protocols §6.1): `POST /v2/rerank`; billed in search units the vendor reports. */
export const cohereRerank: RerankCodec = {
  prepare(call, target) {
    const body: Record<string, unknown> = { model: target.upstreamModel, query: call.query, documents: call.documents };
    if (call.topN !== undefined) body.top_n = call.topN;
    return { path: '/v2/rerank', body: JSON.stringify(body) };
  },
  decode(_call, _target, raw) {
    const json = JSON.parse(utf8Text(raw)) as RerankAnswer;
    const units = Number(json.meta?.billed_units?.search_units);
    const searchUnits = Number.isInteger(units) && units > 0 ? units : 1;
    const results = (json.results ?? [])
      .filter((r): r is { index: number; relevance_score: number } => typeof r.index === 'number' && typeof r.relevance_score === 'number')
      .map((r) => ({ index: r.index, relevance_score: r.relevance_score }));
    const result: RerankResult = { results, tokens: 0, searchUnits };
    if (typeof json.id === 'string') result.id = json.id;
    return { usage: { ...emptyUsage(), units: searchUnits }, result };
  },
  mapError: mapCohereError,
};
