import type { Logger } from 'pino';
import { NOOP_TRACER, type Tracer, type TracingOptions } from './tracing.ts';

/** The SDK and its exporter (~250 modules) are imported only when tracing is configured. */
export async function createTracer(options: TracingOptions | undefined, log: Pick<Logger, 'warn'>): Promise<Tracer> {
  if (!options) return NOOP_TRACER;
  const { OtelTracer } = await import('./tracing-otel.ts');
  return new OtelTracer(options, log);
}
