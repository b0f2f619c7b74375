import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { paidServiceTier, requireAudioPrice, requireToolPrice, type PaidEstimate } from '../../core/paid-features.ts';

/**
 * The chat request's features that cost more than its tokens, each refused with a 400 naming
 * the field unless the model prices it: a paid `service_tier` (flex, priority…), web search
 * (`web_search_options`, one search per request), audio output (`modalities` with "audio", or
 * `audio`), audio in the prompt (`input_audio` parts). What is accepted is reserved for
 * (undefined: nothing beyond the tokens).
 */
export function paidChatFeatures(body: Record<string, unknown>, model: CatalogueModel): PaidEstimate | undefined {
  let paid: PaidEstimate | undefined;
  const tier = paidServiceTier(model, body.service_tier, 'service_tier');
  if (tier !== undefined) (paid ??= {}).serviceTier = tier;
  if (body.web_search_options != null) {
    requireToolPrice(model, 'web_search', 'web_search_options');
    (paid ??= {}).toolCalls = { web_search: 1 };
  }
  const audioPart = firstAudioPart(body.messages);
  if (audioPart !== undefined) {
    requireAudioPrice(model, 'input', audioPart);
    (paid ??= {}).audioInput = true;
  }
  const audioParam = Array.isArray(body.modalities) && body.modalities.includes('audio') ? 'modalities' : body.audio != null ? 'audio' : undefined;
  if (audioParam !== undefined) {
    requireAudioPrice(model, 'output', audioParam);
    (paid ??= {}).audioOutput = true;
  }
  return paid;
}

/** The path of the prompt's first `input_audio` part (the field a refusal names), if any. */
function firstAudioPart(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  // indexed loops: every chat request runs this, and an iterator's entries are an array apiece
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      if ((content[j] as { type?: unknown } | null)?.type === 'input_audio') return `messages[${i}].content[${j}]`;
    }
  }
  return undefined;
}
