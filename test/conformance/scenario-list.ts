// The one list of conformance scenarios. Each client dialect implements every one of them
// (TypeScript enforces it: a Record over these names), and each implementation runs against
// every family.
import type { ScenarioContext } from './context.ts';

export const SCENARIOS = [
  'text',
  'streaming text',
  'tools: one call, then its result',
  'tools: parallel calls, then their results',
  'tools: streamed calls, then their results',
  'multimodal input',
  'usage: cached and cache-write prompt tokens',
  'JSON schema output',
  'reasoning',
  'truncation at the output cap',
  'each error class',
  'client abort mid-stream',
  'upstream cut mid-stream',
  'upstream error event mid-stream',
] as const;

export type ScenarioName = (typeof SCENARIOS)[number];
export type ScenarioImplementations = Record<ScenarioName, (ctx: ScenarioContext) => Promise<void>>;
