import type { IrUsage } from '../../core/ir/chat.ts';
import { irUsage } from '../../core/ir/usage.ts';
import { asCount, asObject } from '../_kit/read.ts';

/**
 * `usageMetadata` → IR usage (protocols.md §5.8): the prompt includes tool-use prompt tokens,
 * the completion includes thoughts (billed as output), cached tokens are a subset of the prompt;
 * the prompt's audio tokens (`promptTokensDetails`, modality AUDIO) are billed at the audio price.
 */
export function usageToIr(raw: unknown): IrUsage | null {
  const usage = asObject(raw);
  if (!usage) return null;
  const prompt = asCount(usage.promptTokenCount) + asCount(usage.toolUsePromptTokenCount);
  const thoughts = asCount(usage.thoughtsTokenCount);
  const completion = asCount(usage.candidatesTokenCount) + thoughts;
  return irUsage({ prompt, completion, cached: asCount(usage.cachedContentTokenCount), reasoning: thoughts, total: asCount(usage.totalTokenCount) || prompt + completion, audioInput: modalityCount(usage.promptTokensDetails, 'AUDIO') });
}

/** The tokens of one modality in a `…TokensDetails` list (`[{modality, tokenCount}]`). */
function modalityCount(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const entry of details) {
    const item = asObject(entry);
    if (item?.modality === modality) total += asCount(item.tokenCount);
  }
  return total;
}
