import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, trace, type Attributes, type Context, type Span, type Tracer as ApiTracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator, setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { nanoToUsd } from '../core/money.ts';
import type { RequestTrace, TracedAttemptResult, TracedOperation, TracedOutcome, TracedRequest, Tracer, TracingOptions } from './tracing.ts';
import * as A from './tracing-semconv.ts';

/** Tracing on: the OpenTelemetry SDK, spans batched and exported over OTLP/HTTP (JSON). */
export class OtelTracer implements Tracer {
  readonly enabled = true;
  readonly #provider: TracerProvider;
  readonly #tracer: ApiTracer;
  // W3C trace context only; nothing is registered globally (several gateways may share a process)
  readonly #propagator = new W3CTraceContextPropagator();

  constructor(options: TracingOptions, log: Pick<Logger, 'warn'>) {
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({ ...options.resourceAttributes, [ATTR_SERVICE_NAME]: options.serviceName }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.url, headers: options.headers }) })],
    });
    this.#tracer = this.#provider.getTracer('modelgate');
    // an unreachable collector costs a log line per failed batch, never a request
    setGlobalErrorHandler((error) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'OpenTelemetry: spans could not be exported'));
  }

  request(headers: IncomingHttpHeaders, ctx: TracedRequest, op: TracedOperation): RequestTrace {
    return new OtelRequestTrace(this.#tracer, this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter), ctx, op);
  }

  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

/** One request: a SERVER span named after the GenAI conventions, its children admission, one CLIENT span per upstream attempt, settlement. */
class OtelRequestTrace implements RequestTrace {
  readonly #tracer: ApiTracer;
  readonly #span: Span;
  /** the request span's context: the parent of every child */
  readonly #context: Context;
  readonly #operation: string;
  readonly #call: unknown;
  #admission: Span | undefined;
  #attempt: Span | undefined;
  /** the open attempt's provider, named on the request span when it answers */
  #attemptOf: { system: string; providerId: string; upstreamModel: string } | undefined;
  #attempts = 0;
  #settlement: Span | undefined;

  constructor(tracer: ApiTracer, parent: Context, ctx: TracedRequest, op: TracedOperation) {
    this.#tracer = tracer;
    this.#operation = A.genAiOperation(op.operation);
    this.#call = op.call;
    this.#span = tracer.startSpan(
      `${this.#operation} ${op.model}`,
      {
        kind: SpanKind.SERVER,
        startTime: ctx.startedAt,
        attributes: {
          [A.GEN_AI_OPERATION_NAME]: this.#operation,
          [A.GEN_AI_REQUEST_MODEL]: op.model,
          [A.GEN_AI_REQUEST_STREAM]: op.stream,
          [ATTR_HTTP_ROUTE]: op.endpoint,
          [A.MODELGATE_REQUEST_ID]: ctx.requestId,
          [A.MODELGATE_KEY_ID]: ctx.principal.key.id,
          [A.MODELGATE_ACCOUNT_ID]: ctx.principal.accountId,
        },
      },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
    this.#admission = tracer.startSpan('admission', { startTime: ctx.startedAt }, this.#context);
  }

  admitted(): void {
    this.#admission?.end();
    this.#admission = undefined;
  }

  attemptStarted(system: string, providerId: string, upstreamModel: string): void {
    this.#attempt?.end();
    this.#attemptOf = { system, providerId, upstreamModel };
    this.#attempt = this.#tracer.startSpan(
      `${this.#operation} ${upstreamModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [A.GEN_AI_OPERATION_NAME]: this.#operation,
          [A.GEN_AI_SYSTEM]: system,
          [A.GEN_AI_PROVIDER_NAME]: system,
          [A.GEN_AI_REQUEST_MODEL]: upstreamModel,
          [A.MODELGATE_PROVIDER_ID]: providerId,
          [A.MODELGATE_ATTEMPT]: ++this.#attempts,
        },
      },
      this.#context,
    );
  }

  upstreamStatus(status: number): void {
    this.#attempt?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  }

  attemptEnded(result: TracedAttemptResult): void {
    const span = this.#attempt;
    if (!span) return;
    this.#attempt = undefined;
    const of = this.#attemptOf;
    if (result.kind === 'done' && of) {
      // the provider that answered is the request's
      this.#span.setAttributes({
        [A.GEN_AI_SYSTEM]: of.system,
        [A.GEN_AI_PROVIDER_NAME]: of.system,
        [A.GEN_AI_RESPONSE_MODEL]: of.upstreamModel,
        [A.MODELGATE_PROVIDER_ID]: of.providerId,
      });
    } else if (result.kind !== 'done') {
      failed(span, result.error?.type ?? result.kind);
    }
    span.end();
  }

  settling(): void {
    this.#settlement?.end();
    this.#settlement = this.#tracer.startSpan('settlement', {}, this.#context);
  }

  settled(outcome: TracedOutcome): void {
    const span = this.#settlement;
    if (!span) return;
    this.#settlement = undefined;
    span.setAttributes(usageAttributes(outcome));
    span.setAttribute(A.MODELGATE_SETTLEMENT, outcome.usage ? 'charged' : 'released');
    span.end();
  }

  end(outcome: TracedOutcome): void {
    const error = outcome.error ?? (outcome.status === 499 ? 'client_closed' : undefined);
    // children the request left open (a refusal in admission, an attempt that threw) end with its outcome
    for (const open of [this.#admission, this.#attempt, this.#settlement]) {
      if (!open) continue;
      if (error) failed(open, error);
      open.end();
    }
    this.#admission = this.#attempt = this.#settlement = undefined;
    const span = this.#span;
    span.setAttributes(usageAttributes(outcome));
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
    const maxTokens = outputCap(this.#call);
    if (maxTokens !== undefined) span.setAttribute(A.GEN_AI_REQUEST_MAX_TOKENS, maxTokens);
    if (error) span.setAttribute(ATTR_ERROR_TYPE, error);
    // a server span is in error for 5xx only (HTTP conventions): a 4xx is the client's
    if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

function failed(span: Span, errorType: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

function usageAttributes(outcome: TracedOutcome): Attributes {
  const usage = outcome.usage;
  return {
    [A.GEN_AI_USAGE_INPUT_TOKENS]: usage?.inputTokens ?? 0,
    [A.GEN_AI_USAGE_OUTPUT_TOKENS]: usage?.outputTokens ?? 0,
    ...(usage?.cachedInputTokens && { [A.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cachedInputTokens }),
    [A.MODELGATE_COST_USD]: nanoToUsd(outcome.costNano),
  };
}

/** The call's output cap (chat calls carry `maxOutputTokens`; other operations have none). */
function outputCap(call: unknown): number | undefined {
  if (typeof call !== 'object' || call === null || !('maxOutputTokens' in call)) return undefined;
  return typeof call.maxOutputTokens === 'number' ? call.maxOutputTokens : undefined;
}
