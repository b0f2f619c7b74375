import { countTextTokens, IMAGE_ALLOWANCE } from '../../pipeline/token-counter.ts';

const PER_MESSAGE = 4;
const base64Allowance = (data: string) => Math.ceil(data.length / 4);

/**
 * Prompt tokens of a messages request, counted locally (o200k): the reservation's upper bound,
 * and the answer of count_tokens when no native provider serves the model (an estimate then).
 */
export function countMessagesTokens(body: Record<string, unknown>): number {
  let total = 3 + countContent(body.system);
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Array<Record<string, unknown>>) total += PER_MESSAGE + countContent(message.content);
  }
  if (body.tools !== undefined) total += countTextTokens(JSON.stringify(body.tools));
  return total;
}

function countContent(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const block of content as Array<Record<string, unknown>>) {
    switch (block.type) {
      case 'text':
        total += countTextTokens(String(block.text ?? ''));
        break;
      case 'image':
        total += IMAGE_ALLOWANCE;
        break;
      case 'document': {
        const data = (block.source as { data?: unknown } | undefined)?.data;
        total += typeof data === 'string' ? base64Allowance(data) : countTextTokens(JSON.stringify(block));
        break;
      }
      case 'tool_result':
        total += countContent(block.content);
        break;
      case 'thinking':
        total += countTextTokens(String(block.thinking ?? ''));
        break;
      default:
        total += countTextTokens(JSON.stringify(block));
    }
  }
  return total;
}
