import type { TracingOptions } from './tracing.ts';

type Env = Record<string, string | undefined>;

/**
 * The standard OpenTelemetry variables: tracing is on when an OTLP endpoint is set
 * (OTEL_EXPORTER_OTLP_ENDPOINT, a base to which `/v1/traces` is added, or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as it is) and OTEL_SDK_DISABLED is not `true`.
 */
export function tracingFromEnv(env: Env): TracingOptions | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return undefined;
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  const name = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`${name} must be an http(s) URL (got "${traces || base}")`);
  const resourceAttributes = keyValues(env.OTEL_RESOURCE_ATTRIBUTES);
  return {
    url,
    headers: { ...keyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...keyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    // OTEL_SERVICE_NAME wins over a service.name among the resource attributes
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || 'modelgate',
    resourceAttributes,
  };
}

/** `key1=value1,key2=value2`, values percent-encoded (the OpenTelemetry format of headers and resource attributes). */
export function keyValues(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    if (!key) continue;
    const value = pair.slice(eq + 1).trim();
    try {
      out[key] = decodeURIComponent(value);
    } catch {
      out[key] = value;
    }
  }
  return out;
}
