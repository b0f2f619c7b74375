import type { IrUsage } from '../../core/ir/chat.ts';

/** IR usage → messages usage: `input_tokens` counts only the uncached part of the prompt. */
export function messagesUsage(usage: IrUsage | null) {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached - written),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
  };
}

/** Messages ids start with `msg_`; ids from other vendors are prefixed. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id.replace(/[^A-Za-z0-9_-]/g, '')}`;
}
