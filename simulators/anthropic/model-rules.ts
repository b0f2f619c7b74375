/**
 * The vendor's rule for Claude 5 and later (protocols.md §3.1): fixed sampling, adaptive thinking
 * only. The simulator keeps its own copy: it checks what the vendor checks, not what the gateway
 * believes. Model ids the rule does not recognise are treated as the older generation.
 */
const GENERATION = /^claude-(?:opus|sonnet|haiku|fable)-(\d+)/;

export function isAdaptiveGeneration(model: string): boolean {
  const match = GENERATION.exec(model);
  return match !== null && Number(match[1]) >= 5;
}
