import { countTokens } from 'gpt-tokenizer';

/**
 * Local token counts (o200k_base). Used for the reservation's upper bound and to bill a
 * stream whose vendor usage never arrived. Exact for OpenAI's current models, an estimate
 * for other vendors' tokenizers.
 */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text);
}

// OpenAI's published accounting: ~3 tokens of framing per message plus 3 to prime the reply.
const PER_MESSAGE = 4;
export const REPLY_PRIMER = 3;
/** A high-detail 2048×2048 image costs 765 tokens on gpt-4o; reserve a little above that. */
export const IMAGE_ALLOWANCE = 1_105;
/** Audio and files cannot be counted without decoding them; 1 token per 4 base64 bytes bounds them. */
const base64Allowance = (data: string) => Math.ceil(data.length / 4);

export function countChatPromptTokens(body: { messages?: unknown; tools?: unknown; functions?: unknown }): number {
  let total = REPLY_PRIMER;
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Array<Record<string, unknown>>) {
      total += PER_MESSAGE;
      if (typeof message.name === 'string') total += countTextTokens(message.name);
      total += countContentTokens(message.content);
      if (message.tool_calls !== undefined) total += countTextTokens(JSON.stringify(message.tool_calls));
      if (message.function_call !== undefined) total += countTextTokens(JSON.stringify(message.function_call));
    }
  }
  if (body.tools !== undefined) total += countTextTokens(JSON.stringify(body.tools));
  if (body.functions !== undefined) total += countTextTokens(JSON.stringify(body.functions));
  return total;
}

function countContentTokens(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content as Array<Record<string, unknown>>) {
    switch (part.type) {
      case 'text':
        total += countTextTokens(String(part.text ?? ''));
        break;
      case 'image_url':
        total += IMAGE_ALLOWANCE;
        break;
      case 'input_audio':
        total += base64Allowance(String((part.input_audio as { data?: string } | undefined)?.data ?? ''));
        break;
      case 'file':
        total += base64Allowance(String((part.file as { file_data?: string } | undefined)?.file_data ?? ''));
        break;
      default:
        total += countTextTokens(JSON.stringify(part));
    }
  }
  return total;
}

/** Legacy completions: `prompt` may be a string, strings, or token arrays. */
export function countPromptTokens(prompt: unknown): number {
  if (typeof prompt === 'string') return countTextTokens(prompt);
  if (!Array.isArray(prompt)) return 0;
  let total = 0;
  for (const item of prompt) {
    if (typeof item === 'string') total += countTextTokens(item);
    else if (typeof item === 'number') total += 1;
    else if (Array.isArray(item)) total += item.length;
  }
  return total;
}
