// What the three added scenarios (JSON schema, reasoning, truncation) check on the upstream side:
// the simulators do not act on every setting (only OpenAI's /responses writes JSON for a schema),
// so the scenario asserts the setting reached the vendor in the vendor's own form.
import assert from 'node:assert/strict';
import type { ScenarioContext } from './context.ts';

type Json = Record<string, unknown>;

/** The schema every dialect asks for (a name no prompt contains). */
export const SCHEMA = { type: 'object', properties: { conformance_verdict: { type: 'string' } }, required: ['conformance_verdict'], additionalProperties: false } as const;

/** A reply long enough to meet any output cap the truncation scenario sets. */
export const LONG_ANSWER = { kind: 'long-answer', tokens: 400 } as const;
/** The truncation scenario's output cap (OpenAI's /responses floors max_output_tokens at 16). */
export const CAP = 20;

const lastBody = (ctx: ScenarioContext): Json => ctx.upstream.requests.at(-1)!.body as Json;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

/** The schema reached the vendor: OpenAI's response_format (or text.format on /responses), Anthropic's output_config.format, Gemini's responseJsonSchema. */
export function assertSchemaSent(ctx: ScenarioContext): void {
  const body = lastBody(ctx);
  if (ctx.family === 'openai') {
    const chat = obj(obj(body.response_format).json_schema);
    const responses = obj(obj(body.text).format);
    const schema = obj(body.response_format).type === 'json_schema' ? chat.schema : responses.type === 'json_schema' ? responses.schema : undefined;
    assert.deepEqual(schema, SCHEMA, JSON.stringify(body));
  } else if (ctx.family === 'anthropic') {
    assert.deepEqual(obj(body.output_config).format, { type: 'json_schema', schema: SCHEMA }, JSON.stringify(body));
  } else {
    const generation = obj(body.generationConfig);
    assert.equal(generation.responseMimeType, 'application/json', JSON.stringify(body));
    assert.deepEqual(generation.responseJsonSchema ?? generation.responseSchema, SCHEMA, JSON.stringify(body));
  }
}

/** The reasoning setting reached the vendor (OpenAI: the effort; Anthropic: thinking on; Gemini: a thinkingConfig) — or, `false`, that none did. */
export function assertReasoningSent(ctx: ScenarioContext, sent = true): void {
  const body = lastBody(ctx);
  const found =
    ctx.family === 'openai'
      ? (body.reasoning_effort ?? obj(body.reasoning).effort) !== undefined
      : ctx.family === 'anthropic'
        ? ['adaptive', 'enabled'].includes(String(obj(body.thinking).type))
        : obj(body.generationConfig).thinkingConfig !== undefined;
  assert.equal(found, sent, JSON.stringify(body));
}

/** The output cap reached the vendor as its own field. */
export function assertCapSent(ctx: ScenarioContext, cap = CAP): void {
  const body = lastBody(ctx);
  const sent = ctx.family === 'gemini' ? obj(body.generationConfig).maxOutputTokens : (body.max_completion_tokens ?? body.max_tokens ?? body.max_output_tokens);
  assert.equal(sent, cap, JSON.stringify(body));
}

/** The hidden reasoning tokens each family's simulator reports for the scenario (Gemini: 12 thoughts; OpenAI's gpt-4o-mini none; Anthropic counts thinking inside output_tokens). */
export const SIM_REASONING_TOKENS = { openai: 0, anthropic: 0, gemini: 12 } as const;
