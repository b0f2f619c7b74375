import { countTextTokens, IMAGE_ALLOWANCE, type TextCounter } from '../../core/tokens/token-counter.ts';

const PER_MESSAGE = 4;
const base64Allowance = (data: string) => Math.ceil(data.length / 4);

/**
 * Prompt tokens of a messages request, counted locally (o200k): the reservation's upper bound,
 * and the answer of count_tokens when no native provider serves the model (an estimate then).
 */
export function countMessagesTokens(body: Record<string, unknown>, count: TextCounter = countTextTokens): number {
  let total = 3 + countContent(body.system, count);
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Array<Record<string, unknown>>) total += PER_MESSAGE + countContent(message.content, count);
  }
  if (body.tools !== undefined) total += count(JSON.stringify(body.tools));
  return total;
}

function countContent(content: unknown, count: TextCounter): number {
  if (typeof content === 'string') return count(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const block of content as Array<Record<string, unknown>>) {
    switch (block.type) {
      case 'text':
        total += count(String(block.text ?? ''));
        break;
      case 'image':
        total += IMAGE_ALLOWANCE;
        break;
      case 'document': {
        const data = (block.source as { data?: unknown } | undefined)?.data;
        total += typeof data === 'string' ? base64Allowance(data) : count(JSON.stringify(block));
        break;
      }
      case 'tool_result':
        total += countContent(block.content, count);
        break;
      case 'thinking':
        total += count(String(block.thinking ?? ''));
        break;
      default:
        total += count(JSON.stringify(block));
    }
  }
  return total;
}
