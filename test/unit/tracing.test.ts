import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOOP_TRACE, NOOP_TRACER, type TracedOperation, type TracedRequest } from '../../src/observability/tracing.ts';
import { createTracer } from '../../src/observability/tracing-start.ts';
import { keyValues, tracingFromEnv } from '../../src/observability/tracing-env.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';

const silent = { warn: () => {} };

describe('tracing configuration', () => {
  test('off unless an OTLP endpoint is set', () => {
    assert.equal(tracingFromEnv({}), undefined);
    assert.equal(tracingFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' }), undefined);
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), undefined);
  });

  test('the base endpoint gets /v1/traces; the traces endpoint is used as it is', () => {
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })?.url, 'http://c:4318/v1/traces');
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t/otlp/traces' })?.url, 'https://t/otlp/traces');
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t/x' })?.url, 'https://t/x');
    assert.throws(() => tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  });

  test('service name, headers and resource attributes', () => {
    const options = tracingFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-tenant = t1,broken',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=t2',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-resource',
    });
    assert.deepEqual(options?.headers, { authorization: 'Bearer abc', 'x-tenant': 't2' });
    assert.equal(options?.serviceName, 'from-resource');
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })?.serviceName, 'modelgate');
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'gw', OTEL_RESOURCE_ATTRIBUTES: 'service.name=r' })?.serviceName, 'gw');
    assert.deepEqual(keyValues('a=1=2,%zz=%zz'), { a: '1=2', '%zz': '%zz' });
  });
});

describe('the tracer', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  test('off: the no-op tracer, one shared trace', async () => {
    const tracer = await createTracer(undefined, silent);
    assert.equal(tracer, NOOP_TRACER);
    assert.equal(tracer.enabled, false);
    assert.equal(tracer.request({}, ctx, op), NOOP_TRACE);
    await tracer.flush();
  });

  test('on: a request span under the caller\'s trace, with admission, attempts and settlement as children', async () => {
    const tracer = await createTracer(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'unit' }), silent);
    assert.equal(tracer.enabled, true);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    const trace = tracer.request({ traceparent: `00-${traceId}-${callerSpan}-01` }, ctx, op);
    trace.admitted();
    trace.attemptStarted('gcp.gemini', 'prov_a', 'gemini-2.5-flash');
    trace.upstreamStatus(503);
    trace.attemptEnded({ kind: 'retry', error: { type: 'upstream_error' } });
    trace.attemptEnded({ kind: 'unable', error: { type: 'invalid_request_error' } });
    trace.attemptStarted('openai', 'prov_b', 'gpt-4o-mini-2024');
    trace.upstreamStatus(200);
    trace.settling();
    const outcome = { status: 200, usage: { inputTokens: 12, outputTokens: 5, cachedInputTokens: 0 }, costNano: 4_500, error: null };
    trace.settled(outcome);
    trace.attemptEnded({ kind: 'done' });
    trace.end(outcome);
    await tracer.shutdown();

    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    assert.equal(spans.length, 5);
    const request = spans.find((s) => s.kind === 2)!;
    assert.equal(request.name, 'chat gpt-4o-mini');
    assert.equal(request.parentSpanId, callerSpan);
    assert.equal(request.resource['service.name'], 'unit');
    assert.deepEqual(
      spans.filter((s) => s !== request).map((s) => [s.name, s.parentSpanId]),
      [
        ['admission', request.spanId],
        ['chat gemini-2.5-flash', request.spanId],
        ['settlement', request.spanId],
        ['chat gpt-4o-mini-2024', request.spanId],
      ],
    );
    const [, failed, settlement, served] = spans.filter((s) => s !== request);
    assert.deepEqual(failed!.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'gcp.gemini',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'modelgate.provider_id': 'prov_a',
      'modelgate.attempt': 1,
      'http.response.status_code': 503,
      'error.type': 'upstream_error',
    });
    assert.equal(failed!.statusCode, 2);
    assert.equal(served!.kind, 3);
    assert.equal(served!.statusCode, 0);
    assert.equal(served!.attributes['modelgate.attempt'], 2);
    assert.equal(settlement!.attributes['modelgate.settlement'], 'charged');
    assert.equal(settlement!.attributes['modelgate.cost_usd'], 4.5e-6);
    assert.deepEqual(request.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.stream': true,
      'http.route': '/v1/chat/completions',
      'modelgate.request_id': 'req_1',
      'modelgate.key_id': 'key_1',
      'modelgate.account_id': 'acct_1',
      'gen_ai.system': 'openai',
      'gen_ai.provider.name': 'openai',
      'gen_ai.response.model': 'gpt-4o-mini-2024',
      'modelgate.provider_id': 'prov_b',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'modelgate.cost_usd': 4.5e-6,
      'http.response.status_code': 200,
      'gen_ai.request.max_tokens': 256,
    });
  });

  test('children left open end with the request\'s error', async () => {
    const tracer = await createTracer(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), silent);
    tracer.request({}, { ...ctx, requestId: 'req_refused' }, op).end({ status: 429, usage: null, costNano: 0, error: 'rate_limit_exceeded' });
    await tracer.flush();
    const request = receiver.spans.find((s) => s.attributes['modelgate.request_id'] === 'req_refused')!;
    assert.equal(request.parentSpanId, undefined);
    assert.equal(request.attributes['error.type'], 'rate_limit_exceeded');
    assert.equal(request.statusCode, 0, 'a 4xx is not a server error');
    const admission = receiver.spans.find((s) => s.parentSpanId === request.spanId)!;
    assert.equal(admission.name, 'admission');
    assert.equal(admission.attributes['error.type'], 'rate_limit_exceeded');
    await tracer.shutdown();
  });
});

const ctx: TracedRequest = { requestId: 'req_1', principal: { accountId: 'acct_1', key: { id: 'key_1' } }, startedAt: Date.now() };
const op: TracedOperation = { operation: 'chat', model: 'gpt-4o-mini', endpoint: '/v1/chat/completions', stream: true, call: { body: { messages: [] }, maxOutputTokens: 256 } };
