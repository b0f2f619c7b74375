// POST /v1/moderations (protocols §2.4) and the widely used POST /v1/rerank (§6.2).
import { randomUUID } from 'node:crypto';
import { invalidRequest } from './errors.ts';
import type { MediaReply, MediaRequest } from './media-reply.ts';
import { countTokens } from './text.ts';

const CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];
/** words that make the simulated classifier flag a text, and the category they raise */
const TRIGGERS: Record<string, string> = { kill: 'violence', hate: 'hate', attack: 'violence' };

export function moderationReply(request: MediaRequest): MediaReply {
  const body = request.json;
  if (!body) return { kind: 'error', error: invalidRequest('This endpoint takes a JSON body.', null) };
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map((i) => (typeof i === 'string' ? i : String((i as { text?: unknown })?.text ?? ''))) : null;
  if (!texts || texts.length === 0) return { kind: 'error', error: invalidRequest("Invalid value for 'input'.", 'input') };
  const results = texts.map((text) => {
    const raised = new Set(Object.entries(TRIGGERS).filter(([word]) => text.toLowerCase().includes(word)).map(([, category]) => category));
    return {
      flagged: raised.size > 0,
      categories: Object.fromEntries(CATEGORIES.map((c) => [c, raised.has(c)])),
      category_scores: Object.fromEntries(CATEGORIES.map((c) => [c, raised.has(c) ? 0.97 : 0.0001])),
      category_applied_input_types: Object.fromEntries(CATEGORIES.map((c) => [c, ['text']])),
    };
  });
  return { kind: 'json', body: { id: `modr-${randomUUID().replaceAll('-', '').slice(0, 24)}`, model: typeof body.model === 'string' ? body.model : 'omni-moderation-latest', results } };
}

export function rerankReply(request: MediaRequest): MediaReply {
  const body = request.json;
  if (!body) return { kind: 'error', error: invalidRequest('This endpoint takes a JSON body.', null) };
  if (typeof body.query !== 'string' || !Array.isArray(body.documents)) return { kind: 'error', error: invalidRequest('query and documents are required', 'documents') };
  const documents = body.documents.map(String);
  const ranked = scoreDocuments(body.query, documents);
  const topN = typeof body.top_n === 'number' ? body.top_n : ranked.length;
  const tokens = countTokens(body.query) * documents.length + documents.reduce((n, d) => n + countTokens(d), 0);
  return {
    kind: 'json',
    body: {
      model: body.model,
      usage: { total_tokens: tokens },
      results: ranked.slice(0, topN).map((r) => ({ index: r.index, relevance_score: r.relevance_score, ...(body.return_documents !== false && { document: { text: documents[r.index] } }) })),
    },
  };
}

/** Word overlap squashed into 0…1, earlier documents slightly ahead on ties. */
export function scoreDocuments(query: string, documents: string[]): Array<{ index: number; relevance_score: number }> {
  const words = new Set(query.toLowerCase().match(/\w+/g) ?? []);
  return documents
    .map((doc, index) => {
      const docWords = doc.toLowerCase().match(/\w+/g) ?? [];
      const hits = docWords.filter((w) => words.has(w)).length;
      return { index, relevance_score: Math.round(((hits / (hits + 1)) * 0.9 + 0.05 / (1 + index)) * 1e6) / 1e6 };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score);
}
