// Scenarios make a simulator misbehave on purpose (errors, latency, broken streams, odd usage).
// Tests queue them with `simulator.enqueue(...)`; humans (demo mode, curl) can put directives in the
// prompt instead. Both resolve to one ScenarioPlan per request. Every family's simulator speaks
// this vocabulary, each in its own wire format (the conformance suite relies on it).
//
// Prompt directives — anywhere in the last user message (chat), the prompt (completions) or an
// input string (embeddings); several may be combined:
//   [[sim:status=429]]   answer with that HTTP status and an OpenAI error envelope (429 adds retry-after: 1)
//   [[sim:retry=5]]      retry-after seconds for a status directive
//   [[sim:slow=500]]     wait 500 ms before the response headers
//   [[sim:cut=3]]        stream: send 3 content chunks then drop the connection (non-stream: drop at once)
//   [[sim:stream-error=3]] stream: send 3 content chunks then an in-band error event, and close
//   [[sim:cached=100]]   report 100 cached prompt tokens
//   [[sim:cache-write=50]] report 50 prompt tokens written to the cache (families that report it)
//   [[sim:no-usage]]     report no usage at all
//   [[sim:malformed]]    stream: one `data: {not json` event in the middle
//   [[sim:long=16000]]   answer with 16,000 tokens of text (still cut at the request's output cap)
//   [[sim:ignore-cap]]   answer past the request's output cap (a vendor overrunning it)
// A queued scenario takes precedence; prompt directives apply only when the queue is empty.

export type Scenario =
  | { kind: 'status'; status: number; retryAfterSeconds?: number; type?: string; code?: string; message?: string }
  | { kind: 'slow-first-byte'; delayMs: number }
  | { kind: 'cut-stream'; afterChunks: number }
  | { kind: 'stream-error'; afterChunks: number }
  | { kind: 'usage'; cachedTokens?: number; cacheWriteTokens?: number; promptTokens?: number; completionTokens?: number }
  | { kind: 'no-usage' }
  | { kind: 'reply'; text: string }
  | { kind: 'malformed-event' }
  | { kind: 'long-answer'; tokens: number; ignoreCap?: boolean };

export interface ScenarioError {
  status: number;
  retryAfterSeconds?: number;
  type?: string;
  code?: string;
  message?: string;
}

export interface UsageOverride {
  cachedTokens?: number;
  cacheWriteTokens?: number;
  promptTokens?: number;
  completionTokens?: number;
}

/** The resolved effect of scenarios on one request. */
export interface ScenarioPlan {
  error?: ScenarioError;
  firstByteDelayMs: number;
  cutAfterChunks?: number;
  /** stream: an in-band error event after this many content chunks */
  streamErrorAfterChunks?: number;
  usage?: UsageOverride;
  omitUsage: boolean;
  replyText?: string;
  malformedEvent: boolean;
  /** the answer runs to this many tokens of text (before the output cap) */
  longAnswerTokens?: number;
  /** the output cap the request sets is not applied */
  ignoreCap?: boolean;
}

export function emptyPlan(): ScenarioPlan {
  return { firstByteDelayMs: 0, omitUsage: false, malformedEvent: false };
}

export function planFromScenario(scenario: Scenario): ScenarioPlan {
  const plan = emptyPlan();
  switch (scenario.kind) {
    case 'status': {
      const { kind: _kind, ...error } = scenario;
      plan.error = error;
      break;
    }
    case 'slow-first-byte':
      plan.firstByteDelayMs = scenario.delayMs;
      break;
    case 'cut-stream':
      plan.cutAfterChunks = scenario.afterChunks;
      break;
    case 'stream-error':
      plan.streamErrorAfterChunks = scenario.afterChunks;
      break;
    case 'usage': {
      const { kind: _kind, ...usage } = scenario;
      plan.usage = usage;
      break;
    }
    case 'no-usage':
      plan.omitUsage = true;
      break;
    case 'reply':
      plan.replyText = scenario.text;
      break;
    case 'malformed-event':
      plan.malformedEvent = true;
      break;
    case 'long-answer':
      plan.longAnswerTokens = scenario.tokens;
      if (scenario.ignoreCap) plan.ignoreCap = true;
      break;
    default: {
      const unreachable: never = scenario;
      throw new Error(`unknown scenario ${JSON.stringify(unreachable)}`);
    }
  }
  return plan;
}

const DIRECTIVE = /\[\[sim:([a-z-]+)(?:=(\d+))?\]\]/g;

/** Reads `[[sim:…]]` directives from prompt text; unknown directives are ignored. */
export function planFromPromptText(text: string): ScenarioPlan {
  const plan = emptyPlan();
  if (!text.includes('[[sim:')) return plan;
  let retryAfterSeconds: number | undefined;
  for (const match of text.matchAll(DIRECTIVE)) {
    const name = match[1];
    const value = match[2] === undefined ? undefined : Number(match[2]);
    if (name === 'status' && value !== undefined) plan.error = { status: value };
    else if (name === 'retry' && value !== undefined) retryAfterSeconds = value;
    else if (name === 'slow' && value !== undefined) plan.firstByteDelayMs = value;
    else if (name === 'cut' && value !== undefined) plan.cutAfterChunks = value;
    else if (name === 'stream-error' && value !== undefined) plan.streamErrorAfterChunks = value;
    else if (name === 'cached' && value !== undefined) plan.usage = { ...plan.usage, cachedTokens: value };
    else if (name === 'cache-write' && value !== undefined) plan.usage = { ...plan.usage, cacheWriteTokens: value };
    else if (name === 'no-usage') plan.omitUsage = true;
    else if (name === 'malformed') plan.malformedEvent = true;
    else if (name === 'long' && value !== undefined) plan.longAnswerTokens = value;
    else if (name === 'ignore-cap') plan.ignoreCap = true;
  }
  if (plan.error && retryAfterSeconds !== undefined) plan.error.retryAfterSeconds = retryAfterSeconds;
  return plan;
}
