import type { IncomingHttpHeaders } from 'node:http';
import { timeoutSignal } from '../core/timeout-signal.ts';
import { authHeaders } from '../pipeline/auth-headers.ts';
import type { ProviderRuntime } from '../pipeline/router.ts';
import type { UpstreamClient } from '../pipeline/upstream-client.ts';
import { bufferView } from '../core/buffer-view.ts';

/** One health probe's outcome, as kept in a provider's history and shown in the console. */
export interface ProbeResult {
  /** ISO time the probe was sent */
  at: string;
  ok: boolean;
  /** the upstream's HTTP status; null when nothing came back */
  status: number | null;
  latency_ms: number;
  message: string;
}

export interface ProbeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
}

/** What came back from one small request sent straight to a provider (outside routing and billing). */
export interface ProbeAnswer {
  /** null: no answer (connection refused, timeout…), see `error` */
  status: number | null;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
  latency_ms: number;
  error: string | null;
}

// a models list is small; a provider answering megabytes to it is not healthy either
const BODY_LIMIT = 4 * 1024 * 1024;

/**
 * Sends one request to a provider over its own pool and reads the whole answer: the one way the
 * scheduled health checks and the console's "test provider" button talk to an upstream.
 */
export async function sendProbe(upstream: UpstreamClient, runtime: ProviderRuntime, request: ProbeRequest, timeoutMs: number): Promise<ProbeAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await upstream.send(runtime.upstream, { ...request, signal: timeoutSignal(timeoutMs) });
    const body = await response.body.readAll(BODY_LIMIT);
    return { status: response.status, headers: response.headers, body, latency_ms: elapsed(), error: null };
  } catch (error) {
    return { status: null, headers: {}, body: new Uint8Array(), latency_ms: elapsed(), error: error instanceof Error ? error.message : String(error) };
  }
}

/** The provider's probe: its own `settings.health_check.path`, else its family's; undefined = not probed. */
export function healthProbeFor(runtime: ProviderRuntime): ProbeRequest | undefined {
  const own = runtime.record.settings.health_check;
  const family = runtime.adapter.healthProbe;
  if (own?.enabled === false) return undefined;
  const path = own?.path ?? family?.path;
  if (path === undefined) return undefined;
  return { method: 'GET', path, headers: { ...family?.headers, ...authHeaders(runtime.adapter.manifest.auth, runtime.record.apiKey) } };
}

/** Runs the scheduled probe: any 2xx/3xx answer is healthy. */
export async function runHealthProbe(upstream: UpstreamClient, runtime: ProviderRuntime, request: ProbeRequest, timeoutMs: number): Promise<ProbeResult> {
  const at = new Date().toISOString();
  const answer = await sendProbe(upstream, runtime, request, timeoutMs);
  const ok = answer.status !== null && answer.status < 400;
  const message = answer.error ?? (ok ? 'OK' : `HTTP ${answer.status}: ${errorText(answer.body)}`);
  return { at, ok, status: answer.status, latency_ms: answer.latency_ms, message };
}

/** The upstream's own error message (every family nests it as error.message), else the body's start. */
function errorText(body: Uint8Array): string {
  const text = bufferView(body).toString('utf8');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message);
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300) || 'no body';
}
