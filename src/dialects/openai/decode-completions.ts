import { invalidRequest } from '../../core/errors.ts';
import type { CompletionsCall } from '../../core/contracts/vendor-codec.ts';
import { PromptEstimate } from '../../core/tokens/prompt-estimate.ts';
import { countPromptTokens } from '../../core/tokens/token-counter.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';

/** Legacy completions default to 16 output tokens (the vendor's documented default). */
const DEFAULT_COMPLETION_TOKENS = 16;

export function decodeCompletions(body: Record<string, unknown>, bodyBytes = Number.NaN): Decoded<CompletionsCall> {
  const stream = body.stream === true;
  if (body.stream_options != null && !stream) {
    throw invalidRequest('stream_options is only allowed when stream is true', 'stream_options');
  }
  const n = typeof body.n === 'number' ? body.n : 1;
  const bestOf = typeof body.best_of === 'number' ? body.best_of : n;
  if (bestOf < n) throw invalidRequest('best_of must be greater than or equal to n', 'best_of');
  if (stream && body.best_of != null && bestOf > 1) throw invalidRequest('best_of cannot be used with stream', 'best_of');
  if (Array.isArray(body.prompt) && body.prompt.length === 0) throw invalidRequest('prompt must not be an empty array', 'prompt');
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : DEFAULT_COMPLETION_TOKENS;
  const streamOptions = body.stream_options as { include_usage?: boolean } | null | undefined;
  return {
    model: body.model as string,
    stream,
    // the cap reserved for goes upstream even when it is the vendor's own default: a compatible server may default higher
    call: { body: typeof body.max_tokens === 'number' ? body : { ...body, max_tokens: maxTokens }, stream, clientWantsUsage: streamOptions?.include_usage === true },
    // every best_of candidate is generated and billed
    estimate: new PromptEstimate(body.prompt, countPromptTokens, maxTokens * bestOf, bodyBytes, bestOf),
  };
}
