// What must hold for every answer, and after every batch, whatever the input.
import { expectedCostNano, type TokenUsage } from '../helpers/billing.ts';
import type { Answer, RealtimeOutcome } from './send.ts';
import type { FuzzRequest, RealtimeScript } from './request.ts';
import type { World } from './world.ts';

export interface Violation {
  /** the invariant, short and stable: failures are grouped by it and the route */
  rule: string;
  detail: string;
  route: string;
  status?: number;
  logLine?: string;
}

type Json = Record<string, any>;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why `body` is not the dialect's error envelope (undefined: it is). */
export function envelopeProblem(dialect: FuzzRequest['dialect'], status: number, body: unknown): string | undefined {
  const b = body as Json | undefined;
  const e = b?.error as Json | undefined;
  if (typeof e !== 'object' || e === null) return 'no error object';
  if (typeof e.message !== 'string' || e.message === '') return 'no error.message';
  switch (dialect) {
    case 'openai':
      if (typeof e.type !== 'string') return 'no error.type';
      if (!('param' in e) || (e.param !== null && typeof e.param !== 'string')) return 'error.param missing (must be a string or null)';
      if (!('code' in e) || (e.code !== null && typeof e.code !== 'string')) return 'error.code missing (must be a string or null)';
      return undefined;
    case 'messages':
      if (b!.type !== 'error') return 'type is not "error"';
      return typeof e.type === 'string' ? undefined : 'no error.type';
    case 'google':
      if (e.code !== status) return `error.code ${String(e.code)} is not the status ${status}`;
      return typeof e.status === 'string' ? undefined : 'no error.status';
  }
}

/** The field named by an error answer: `param` in the OpenAI envelope, else the message. */
function namesField(dialect: FuzzRequest['dialect'], body: Json, field: string): boolean {
  if (dialect === 'openai') return body.error.param === field;
  // no param in these envelopes: the message names the field (its own name, without the path)
  return String(body.error.message).includes(field.replace(/\[\d+\]/g, '').split('.').at(-1)!);
}

/** The usage an answer reports, in the price book's terms. */
export function reportedUsage(request: FuzzRequest, answer: Answer): TokenUsage | undefined {
  const priced = request.tokenPriced!;
  if (!priced.stream) {
    const u = (parse(answer.text) as Json | undefined)?.usage as Json | undefined;
    if (!u) return undefined;
    if (priced.usage === 'messages') return messagesUsage(u, u);
    return { prompt: u.prompt_tokens, completion: u.completion_tokens ?? 0, cached: u.prompt_tokens_details?.cached_tokens ?? 0 };
  }
  const events = answer.text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => parse(line.slice(5).trim()) as Json | undefined)
    .filter((e): e is Json => typeof e === 'object' && e !== null);
  if (priced.usage === 'messages') {
    const start = events.find((e) => e.type === 'message_start')?.message?.usage as Json | undefined;
    const delta = events.findLast((e) => e.type === 'message_delta')?.usage as Json | undefined;
    return start && delta ? messagesUsage({ ...start, ...delta }, start) : undefined;
  }
  const u = events.findLast((e) => e.usage)?.usage as Json | undefined;
  return u ? { prompt: u.prompt_tokens, completion: u.completion_tokens ?? 0, cached: u.prompt_tokens_details?.cached_tokens ?? 0 } : undefined;
}

function messagesUsage(u: Json, start: Json): TokenUsage {
  const read = u.cache_read_input_tokens ?? start.cache_read_input_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? start.cache_creation_input_tokens ?? 0;
  return { prompt: (u.input_tokens ?? start.input_tokens) + read + written, completion: u.output_tokens ?? 0, cached: read, cacheWrite: written };
}

/** The checks on one HTTP answer; resolves with the cost it must have been charged (nano-dollars), if token-priced. */
export async function checkAnswer(world: World, request: FuzzRequest, answer: Answer, out: Violation[]): Promise<number> {
  const route = request.route;
  const logLine = () => {
    const line = world.errors.find((e) => e.reqId === answer.requestId) ?? world.errors.at(-1);
    return line ? `${line.msg}${line.err ? ` (${line.err})` : ''}` : undefined;
  };
  if (answer.status === 0) {
    out.push({ rule: 'an HTTP answer', detail: answer.failure ?? 'connection failed', route });
    return 0;
  }
  if (answer.status >= 500 && !request.simFails) {
    out.push({ rule: 'no 5xx from client input', detail: answer.text.slice(0, 300), route, status: answer.status, ...(logLine() && { logLine: logLine() }) });
  }
  if (answer.status >= 400) {
    const body = parse(answer.text);
    const problem = envelopeProblem(request.dialect, answer.status, body);
    if (problem) out.push({ rule: `errors in the ${request.dialect} envelope`, detail: `${problem}: ${answer.text.slice(0, 200)}`, route, status: answer.status });
    else if (request.fault && answer.status < 500 && !namesField(request.dialect, body as Json, request.fault)) {
      out.push({ rule: 'a 4xx names the one field at fault', detail: `expected ${request.fault}; got ${answer.text.slice(0, 300)}`, route, status: answer.status });
    }
  }
  if (request.fault && answer.status < 400) out.push({ rule: 'a wrong field is refused', detail: `${request.fault} (${request.mutation}) was accepted`, route, status: answer.status });
  if (request.valid && (answer.status < 200 || answer.status >= 300)) {
    out.push({ rule: 'a valid request succeeds', detail: answer.text.slice(0, 300), route, status: answer.status, ...(logLine() && { logLine: logLine() }) });
    return 0;
  }
  if (!request.tokenPriced || answer.status !== 200) return 0;
  const usage = reportedUsage(request, answer);
  if (!usage || !Number.isInteger(usage.prompt) || !Number.isInteger(usage.completion)) {
    out.push({ rule: 'a valid answer reports its usage', detail: answer.text.slice(-300), route, status: answer.status });
    return 0;
  }
  return expectedCostNano(world.tg, request.tokenPriced.model, usage);
}

/** Close codes a client's malformed frames may earn; 1011 (internal error) and 1006 (no close frame) may not. */
const ACCEPTABLE_CLOSES = new Set([1000, 1001, 1003, 1007, 1008, 1009, 4000]);

export function checkRealtime(script: RealtimeScript, outcome: RealtimeOutcome, out: Violation[]): void {
  const route = script.route;
  if (outcome.failure) out.push({ rule: 'a realtime session answers', detail: outcome.failure, route });
  if (outcome.refused !== undefined) out.push({ rule: 'the realtime handshake of a valid key succeeds', detail: `refused with ${outcome.refused}`, route, status: outcome.refused });
  if (outcome.closeCode !== undefined && !ACCEPTABLE_CLOSES.has(outcome.closeCode)) out.push({ rule: 'malformed frames never end a session abnormally', detail: `closed with ${outcome.closeCode}`, route });
  if (outcome.unparsable.length > 0) out.push({ rule: 'every server frame is a JSON event', detail: outcome.unparsable[0]!, route });
  for (const event of outcome.errors) {
    const e = event.error as Json | undefined;
    if (typeof e?.type !== 'string' || typeof e.message !== 'string') out.push({ rule: 'realtime error events carry type and message', detail: JSON.stringify(event).slice(0, 300), route });
    else if (e.type === 'server_error' || e.type === 'api_error') out.push({ rule: 'no server error from client frames', detail: JSON.stringify(event).slice(0, 300), route });
  }
}
