/**
 * What differs between model generations (protocols.md §3.1, vendor model pages): from Claude 5
 * on, sampling is fixed (a temperature other than 1, a top_p below 0.99 or any top_k is a 400) and
 * thinking is adaptive only (manual budgets are a 400), steered by `output_config.effort`.
 * Model ids the rule does not recognise are treated as the older generation.
 */
const GENERATION = /^claude-(?:opus|sonnet|haiku|fable)-(\d+)/;

export function isAdaptiveGeneration(model: string): boolean {
  const match = GENERATION.exec(model);
  return match !== null && Number(match[1]) >= 5;
}
