// OpenAI-compatible reasoning servers (DeepSeek's deepseek-reasoner, R1 served by vLLM) think
// aloud: each answer carries `reasoning_content` before the content, streamed as its own deltas,
// and billed as reasoning tokens inside completion_tokens. The real OpenAI API never sends it, so
// only a DeepSeek-like model id gets it.
import { countTokens, snippet } from './text.ts';

const THINKS_ALOUD = /^deepseek-(?:reasoner|r1)\b/;

export function thinksAloud(model: string): boolean {
  return THINKS_ALOUD.test(model);
}

/** Deterministic, like the rest of the answer: the same request always shows the same reasoning. */
export function reasoningFor(userText: string, label: string): { text: string; tokens: number } {
  const text = `Reasoning${label} about: ${snippet(userText, 40) || '(nothing)'}. The answer follows.`;
  return { text, tokens: countTokens(text) };
}
