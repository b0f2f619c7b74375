// Shared helpers of the end-to-end suites: an SDK client as a customer builds it, raw HTTP where
// the SDK hides what must be checked (status, headers, exact body, raw SSE), and the checks every
// suite repeats (error envelope, upstream bodies, exact charges).
import assert from 'node:assert/strict';
import OpenAI, { APIError } from 'openai';
import type { TestGateway } from '../helpers/gateway.ts';

/** The official client as a customer configures it; no retries, so every answer is the first one. */
export function sdk(tg: TestGateway, apiKey: string, baseURL = tg.baseURL): OpenAI {
  return new OpenAI({ apiKey, baseURL, maxRetries: 0 });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** parsed JSON, undefined when the body is not JSON */
  json: any;
}

/** A raw request to the gateway; `body` is sent as JSON unless it is already a string. */
export async function raw(
  tg: TestGateway,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...(options.key !== undefined && { authorization: `Bearer ${options.key}` }) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(tg.origin + path, {
    method,
    headers: { ...headers, ...options.headers },
    ...(options.body !== undefined && { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The `data:` payloads of an SSE body, in order (the `[DONE]` marker included as the string). */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.length > 0)
    .map((event) => {
      assert.match(event, /^data: /, `every event is a data line: ${event.slice(0, 80)}`);
      return event.slice('data: '.length);
    });
}

/** Exactly `{"error":{"message","type","param","code"}}`, with the given status/type/param. */
export function assertErrorBody(body: unknown, expected: { type: string; param?: string | null; code?: string | null }): void {
  assert.ok(body && typeof body === 'object', 'the error body is a JSON object');
  assert.deepEqual(Object.keys(body), ['error']);
  const error = (body as { error: Record<string, unknown> }).error;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(typeof error.message, 'string');
  assert.ok((error.message as string).length > 0, 'the message is not empty');
  assert.ok(error.param === null || typeof error.param === 'string');
  assert.ok(error.code === null || typeof error.code === 'string');
  assert.equal(error.type, expected.type);
  if (expected.param !== undefined) assert.equal(error.param, expected.param);
  if (expected.code !== undefined) assert.equal(error.code, expected.code);
}

type ErrorClass = abstract new (...args: never[]) => APIError;

/** Awaits an SDK call that must fail; checks the SDK's error class and the envelope it parsed. */
export async function sdkError(
  call: Promise<unknown>,
  expected: { cls: ErrorClass; status: number; type: string; param?: string | null; code?: string | null; message?: RegExp },
): Promise<APIError> {
  const error = await call.then(
    () => assert.fail('the call was expected to fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof expected.cls, `expected ${expected.cls.name}, got ${String(error)}`);
  const apiError = error as APIError;
  assert.equal(apiError.status, expected.status);
  assert.equal(apiError.type, expected.type);
  if (expected.param !== undefined) assert.equal(apiError.param, expected.param);
  if (expected.code !== undefined) assert.equal(apiError.code, expected.code);
  if (expected.message) assert.match(apiError.message, expected.message);
  assert.ok(apiError.requestID, 'the SDK sees an x-request-id');
  return apiError;
}

/** Bodies the simulator received on `path` (e.g. `/v1/chat/completions`), oldest first. */
export function upstreamBodies(tg: TestGateway, path: string): any[] {
  assert.ok(tg.sim, 'this gateway has a simulator');
  return tg.sim.requests.filter((r) => r.method === 'POST' && r.path === path).map((r) => r.body);
}

export function lastUpstreamBody(tg: TestGateway, path: string): any {
  const bodies = upstreamBodies(tg, path);
  assert.ok(bodies.length > 0, `the upstream received a request on ${path}`);
  return bodies.at(-1);
}

/** Cost in nano-dollars of a usage at prices given in nano-dollars per token (no cached tokens). */
export function tokenCost(promptTokens: number, completionTokens: number, inputNanoPerToken: number, outputNanoPerToken = 0): number {
  return promptTokens * inputNanoPerToken + completionTokens * outputNanoPerToken;
}

/** gpt-4o-mini's default list price: $0.15 / $0.60 per million tokens. */
export const MINI = { input: 150, output: 600 } as const;
