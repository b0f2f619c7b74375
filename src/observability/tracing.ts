import type { IncomingHttpHeaders } from 'node:http';

/** Where and as what the traces go (read from the standard OTEL_* variables by tracingFromEnv). */
export interface TracingOptions {
  /** the OTLP/HTTP traces URL, `/v1/traces` included */
  url: string;
  /** sent with every export (OTEL_EXPORTER_OTLP_HEADERS) */
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES */
  resourceAttributes: Record<string, string>;
}

/** What the request span reads; the pipeline's own objects satisfy these as they are (nothing is built for tracing). */
export interface TracedOperation {
  operation: string;
  model: string;
  endpoint: string;
  stream: boolean;
  /** read for its output cap (`maxOutputTokens`) at the end, never for its content */
  call: unknown;
}

export interface TracedRequest {
  requestId: string;
  principal: { accountId: string; key: { id: string } };
  /** ms since the epoch: the request span starts here */
  startedAt: number;
}

export interface TracedOutcome {
  status: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number } | null;
  costNano: number;
  error: string | null;
}

export interface TracedAttemptResult {
  kind: string;
  error?: { type: string };
}

/**
 * One request's spans. The request is a sequence (admission, attempts one after another, one
 * settlement), so the trace keeps its open child itself and the pipeline holds no span objects;
 * children still open when the request ends are ended with its outcome.
 */
export interface RequestTrace {
  /** limits and reservation passed: the admission span ends */
  admitted(): void;
  /** a request goes upstream: the attempt span starts */
  attemptStarted(system: string, providerId: string, upstreamModel: string): void;
  /** the upstream's HTTP status, on the open attempt span */
  upstreamStatus(status: number): void;
  attemptEnded(result: TracedAttemptResult): void;
  /** the settlement span starts (settled ends it with what was charged) */
  settling(): void;
  settled(outcome: TracedOutcome): void;
  /** the request span ends, with everything the request record has */
  end(outcome: TracedOutcome): void;
}

export interface Tracer {
  /** false: every method is an empty function and no OpenTelemetry module was loaded */
  readonly enabled: boolean;
  /** the request's trace, a child of the caller's (W3C `traceparent`) when it sent one */
  request(headers: IncomingHttpHeaders, ctx: TracedRequest, op: TracedOperation): RequestTrace;
  /** exports every ended span now (tests; before a shutdown) */
  flush(): Promise<void>;
  /** flushes, then stops the exporter: after the server stopped taking requests */
  shutdown(): Promise<void>;
}

const noop = (): void => {};

/** The trace of every request while tracing is off: one shared object, nothing allocated. */
export const NOOP_TRACE: RequestTrace = {
  admitted: noop,
  attemptStarted: noop,
  upstreamStatus: noop,
  attemptEnded: noop,
  settling: noop,
  settled: noop,
  end: noop,
};

export const NOOP_TRACER: Tracer = {
  enabled: false,
  request: () => NOOP_TRACE,
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
