import type { IrChoice, IrCompletion, IrUsage } from '../../core/ir/chat.ts';

/**
 * IR → OpenAI chat completion (protocols.md §1.5). The IR is this shape already; encoding
 * drops what the wire does not have (the raw finish reason, the stop sequence) and adds the
 * fields the official client expects to see.
 */
export function encodeChatCompletion(completion: IrCompletion): string {
  return JSON.stringify({
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map(encodeChoice),
    ...(completion.usage && { usage: encodeUsage(completion.usage) }),
    system_fingerprint: null,
  });
}

function encodeChoice(choice: IrChoice) {
  const { content, tool_calls: toolCalls, refusal, images, reasoning } = choice.message;
  return {
    index: choice.index,
    message: {
      role: 'assistant',
      content,
      refusal: refusal ?? null,
      // not OpenAI's: where DeepSeek and vLLM put the reasoning text, which clients read; omitted when none
      ...(reasoning !== undefined && reasoning !== '' && { reasoning_content: reasoning }),
      ...(toolCalls && toolCalls.length > 0 && { tool_calls: toolCalls }),
      // images the model drew (`modality: "image"`), OpenRouter's shape; omitted when none
      ...(images && images.length > 0 && { images }),
      annotations: [],
    },
    logprobs: null,
    finish_reason: choice.finish_reason,
  };
}

export function encodeUsage(usage: IrUsage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0, ...cacheWrite(usage) },
    completion_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
}

function cacheWrite(usage: IrUsage): { cache_write_tokens?: number } {
  const tokens = usage.prompt_tokens_details?.cache_write_tokens;
  return tokens ? { cache_write_tokens: tokens } : {};
}
