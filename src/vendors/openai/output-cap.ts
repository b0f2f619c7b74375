import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import { openaiManifest } from './manifest.ts';

/** OpenAI's own chat models: they take `max_completion_tokens`, and its reasoning models refuse `max_tokens`. */
const OWN_CHAT_MODELS = new Set(openaiManifest.models.filter((m) => m.kind === 'chat').map((m) => m.id));
const OWN_REASONING_FAMILY = /^(o\d|gpt-5)/;

/**
 * A chat request that set no output cap of its own goes upstream with the cap the gateway
 * reserved for (`call.maxOutputTokens`), so the vendor cannot answer (and bill) past the hold.
 * OpenAI's models get it as `max_completion_tokens`; any other model id as `max_tokens`, the
 * field every OpenAI-compatible server (vLLM, Ollama, DeepSeek…) reads.
 */
export function withOutputCap(body: Record<string, unknown>, call: ChatCall, upstreamModel: string): Record<string, unknown> {
  if (body.max_completion_tokens != null || body.max_tokens != null) return body;
  const field = OWN_CHAT_MODELS.has(upstreamModel) || OWN_REASONING_FAMILY.test(upstreamModel) ? 'max_completion_tokens' : 'max_tokens';
  body[field] = call.maxOutputTokens;
  return body;
}
