// Deterministic tool calls: which tools get called and with what arguments, derived only from the
// request so the same request always yields the same ids and argument strings. Shared by every
// family's simulator (each renders the calls in its own wire format).
import { hashString, isRecord } from './http.ts';

export interface FunctionTool {
  name: string;
  parameters: unknown;
}

export type ToolChoice =
  | { mode: 'none' }
  | { mode: 'auto' | 'required'; allowed?: string[] }
  | { mode: 'named'; name: string };

export interface SimulatedToolCall {
  id: string;
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

/**
 * One call to the first eligible tool (or the named one); one call per eligible tool when the user
 * asked for "parallel" and `parallel_tool_calls` is not false. Empty when no tool should be called.
 */
export function chooseToolCalls(
  tools: readonly FunctionTool[],
  choice: ToolChoice,
  userText: string,
  parallelAllowed: boolean,
  seed: string,
  idPrefix = 'call_',
): SimulatedToolCall[] {
  if (choice.mode === 'none') return [];
  let eligible: readonly FunctionTool[] = tools;
  if (choice.mode === 'named') eligible = tools.filter((tool) => tool.name === choice.name);
  else if (choice.allowed) eligible = tools.filter((tool) => choice.allowed?.includes(tool.name));
  const parallel = choice.mode !== 'named' && parallelAllowed && /\bparallel\b/i.test(userText);
  const called = parallel ? eligible : eligible.slice(0, 1);
  return called.map((tool, index) => ({
    id: toolCallId(`${seed}|${index}|${tool.name}`, idPrefix),
    name: tool.name,
    arguments: JSON.stringify(sampleArguments(tool.parameters)),
  }));
}

/** `call_` (or another prefix) + 24 hex chars, stable for a given seed. */
export function toolCallId(seed: string, prefix = 'call_'): string {
  const hex = [1, 2, 3].map((salt) => hashString(seed, salt * 0x9e3779b1).toString(16).padStart(8, '0'));
  return `${prefix}${hex.join('')}`;
}

/** An object matching a JSON schema's `properties` with placeholder values. */
export function sampleArguments(schema: unknown): Record<string, unknown> {
  const value = sampleValue(schema, 0);
  return isRecord(value) ? value : {};
}

const MAX_DEPTH = 8;

function sampleValue(schema: unknown, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return 'sample';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleValue(options[0], depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return 'sample';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [sampleValue(schema.items, depth + 1)];
    default: {
      if (type !== 'object' && !isRecord(schema.properties)) return 'sample';
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) result[name] = sampleValue(property, depth + 1);
      return result;
    }
  }
}
