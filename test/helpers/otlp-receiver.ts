import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** the base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it */
  url: string;
  spans: ReceivedSpan[];
  /** every export body as it arrived */
  bodies: string[];
  requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; status?: { code?: number } }[] }[];
  }[];
}

/** An in-process OTLP/HTTP collector on 127.0.0.1:0 that reads JSON exports (what the OTLP/HTTP trace exporter sends). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> = { spans: [], bodies: [], requests: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ path: req.url ?? '', headers: req.headers });
      receiver.bodies.push(body);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(400).end();
        return;
      }
      for (const resourceSpans of (JSON.parse(body) as ExportRequest).resourceSpans ?? []) {
        const resource = flatten(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            receiver.spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: flatten(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function flatten(attributes: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}
