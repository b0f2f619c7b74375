// The rerank answer: word-overlap scores, sorted, `top_n` kept, one search unit per 100 documents.
import { randomUUID } from 'node:crypto';
import { isRecord } from '../_kit/http.ts';

export function rerankAnswer(body: unknown): { status: number; body: unknown } {
  if (!isRecord(body) || typeof body.query !== 'string' || !Array.isArray(body.documents) || typeof body.model !== 'string') {
    return { status: 400, body: { id: randomUUID(), message: 'invalid request: model, query and documents are required' } };
  }
  const words = new Set(body.query.toLowerCase().match(/\w+/g) ?? []);
  const ranked = body.documents
    .map((doc, index) => {
      const hits = (String(doc).toLowerCase().match(/\w+/g) ?? []).filter((w) => words.has(w)).length;
      return { index, relevance_score: Math.round(((hits / (hits + 1)) * 0.9 + 0.05 / (1 + index)) * 1e6) / 1e6 };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score);
  const topN = typeof body.top_n === 'number' ? body.top_n : ranked.length;
  return {
    status: 200,
    body: {
      id: randomUUID(),
      results: ranked.slice(0, topN),
      meta: { api_version: { version: '2', is_experimental: false }, billed_units: { search_units: Math.max(1, Math.ceil(body.documents.length / 100)) } },
    },
  };
}
