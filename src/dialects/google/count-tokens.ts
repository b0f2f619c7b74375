import { countTextTokens, IMAGE_ALLOWANCE, type TextCounter } from '../../core/tokens/token-counter.ts';

const PER_CONTENT = 4;
type Json = Record<string, unknown>;

/**
 * Prompt tokens of a Gemini request, counted locally (o200k): the reservation's upper bound,
 * and the answer of countTokens when no Gemini provider serves the model (an estimate then).
 * A `countTokens` body may wrap the request in `generateContentRequest`.
 */
export function countGeminiTokens(body: Json, count: TextCounter = countTextTokens): number {
  const request = (body.generateContentRequest as Json | undefined) ?? body;
  let total = 3;
  const system = request.systemInstruction;
  if (typeof system === 'string') total += count(system);
  else if (system && typeof system === 'object') total += countParts((system as Json).parts, count);
  if (Array.isArray(request.contents)) for (const content of request.contents as Json[]) total += PER_CONTENT + countParts(content?.parts, count);
  if (request.tools !== undefined) total += count(JSON.stringify(request.tools));
  return total;
}

function countParts(parts: unknown, count: TextCounter): number {
  if (!Array.isArray(parts)) return 0;
  let total = 0;
  for (const part of parts as Json[]) {
    if (typeof part.text === 'string') total += count(part.text);
    else if (part.inlineData || part.fileData) total += IMAGE_ALLOWANCE;
    else total += count(JSON.stringify(part));
  }
  return total;
}
