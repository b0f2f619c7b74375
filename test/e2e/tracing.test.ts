// OpenTelemetry traces end to end: the gateway exports to an in-process OTLP/HTTP receiver when
// OTEL_EXPORTER_OTLP_ENDPOINT is set. The official client sends a W3C traceparent; the request's
// span must hang under it, with admission, each upstream attempt and the settlement as children,
// the GenAI attributes, the usage row's tokens and the charge — and never the prompt or a key.
// Without the variable no OpenTelemetry module is loaded at all: every module resolution of this
// process is watched from the start, which is why everything else is imported dynamically below.
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { after, before, describe, test } from 'node:test';

const otelModules: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('@opentelemetry/')) otelModules.push(specifier);
    return next(specifier, context);
  },
});

const { default: OpenAI } = await import('openai');
const { startTestGateway } = await import('../helpers/gateway.ts');
const { addSimProvider, tapUsage } = await import('../helpers/upstreams.ts');
const { startOtlpReceiver } = await import('../helpers/otlp-receiver.ts');
const { nanoToUsd } = await import('../../src/core/money.ts');
type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
type ReceivedSpan = OtlpReceiver['spans'][number];

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
/** what must never leave the gateway in a span */
const PROMPT = 'the secret recipe is forty-two walnuts';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const traceparent = (spanId: string) => `00-${CALLER_TRACE}-${spanId}-01`;
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let tg: TestGateway;
  before(async () => {
    tg = await startTestGateway();
  });
  after(() => tg.close());

  test('the tracer is the no-op one and neither the OpenTelemetry SDK nor its exporter is loaded, even after a request', async () => {
    const customer = await tg.customer(1);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] }, { headers: { traceparent: traceparent('00f067aa0ba902b7') } });
    assert.equal(tg.gateway.tracer.enabled, false);
    // prom-client loads the API (a small no-op façade) for itself; the SDK and the exporter stay out
    assert.deepEqual(otelModules.filter((m) => m !== '@opentelemetry/api'), []);
  });
});

describe('tracing on', () => {
  let receiver: OtlpReceiver;
  let tg: TestGateway;
  before(async () => {
    receiver = await startOtlpReceiver();
    tg = await startTestGateway({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'modelgate-test', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=abc%20def' },
    });
  });
  after(async () => {
    await tg.close();
    await receiver.close();
  });

  /** The request span of the call whose usage row is `requestId`, and its children, once exported. */
  async function exported(requestId: string): Promise<{ request: ReceivedSpan; children: ReceivedSpan[] }> {
    await tg.gateway.tracer.flush();
    const request = receiver.spans.find((s) => s.kind === SERVER && s.attributes['modelgate.request_id'] === requestId);
    assert.ok(request, `a request span for ${requestId}`);
    return { request, children: childrenOf(receiver.spans, request) };
  }

  for (const stream of [false, true]) {
    test(`${stream ? 'a streamed' : 'a'} chat: a child of the caller's span, with admission, the attempt and the settlement, the usage row's tokens and the charge`, async () => {
      assert.ok(otelModules.includes('@opentelemetry/sdk-trace'), 'the SDK was loaded');
      const customer = await tg.customer(1);
      const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
      const tap = tapUsage(tg.gateway);
      const callerSpan = stream ? 'a3ce929d0e0e4736' : '00f067aa0ba902b7';
      const body = { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user' as const, content: PROMPT }] };
      if (stream) {
        const chunks = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { headers: { traceparent: traceparent(callerSpan) } });
        for await (const _ of chunks);
      } else {
        await client.chat.completions.create(body, { headers: { traceparent: traceparent(callerSpan) } });
      }
      const row = await tap.next((r) => r.account_id === customer.accountId);
      const { request, children } = await exported(row.request_id);

      assert.equal(request.traceId, CALLER_TRACE);
      assert.equal(request.parentSpanId, callerSpan);
      assert.equal(request.name, 'chat gpt-4o-mini');
      assert.equal(request.resource['service.name'], 'modelgate-test');
      assert.equal(request.statusCode, 0);
      const charged = 1e9 - tg.balanceNano(customer.accountId);
      assert.ok(row.cost_nano > 0 && row.prompt_tokens > 0 && row.completion_tokens > 0);
      assert.equal(charged, row.cost_nano);
      assert.deepEqual(request.attributes, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.request.stream': stream,
        'gen_ai.request.max_tokens': 50,
        'gen_ai.system': 'openai',
        'gen_ai.provider.name': 'openai',
        'gen_ai.response.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': row.prompt_tokens,
        'gen_ai.usage.output_tokens': row.completion_tokens,
        'modelgate.cost_usd': nanoToUsd(charged),
        'modelgate.request_id': row.request_id,
        'modelgate.key_id': customer.keyId,
        'modelgate.account_id': customer.accountId,
        'modelgate.provider_id': tg.providerId!,
        'http.route': '/v1/chat/completions',
        'http.response.status_code': 200,
      });

      assert.deepEqual(children.map((s) => s.name).sort(), ['admission', 'chat gpt-4o-mini', 'settlement']);
      const attempt = children.find((s) => s.kind === CLIENT)!;
      assert.equal(attempt.attributes['gen_ai.system'], 'openai');
      assert.equal(attempt.attributes['gen_ai.request.model'], 'gpt-4o-mini');
      assert.equal(attempt.attributes['modelgate.provider_id'], tg.providerId);
      assert.equal(attempt.attributes['http.response.status_code'], 200);
      assert.equal(attempt.attributes['error.type'], undefined);
      const settlement = children.find((s) => s.name === 'settlement')!;
      assert.equal(settlement.attributes['modelgate.settlement'], 'charged');
      assert.equal(settlement.attributes['modelgate.cost_usd'], nanoToUsd(charged));
      assert.equal(settlement.attributes['gen_ai.usage.input_tokens'], row.prompt_tokens);

      // nothing of the conversation and no credential leaves in any export
      const everything = receiver.bodies.join('\n');
      assert.ok(!everything.includes('walnuts'), 'no prompt text');
      assert.ok(!everything.includes(customer.key) && !everything.includes('sim-upstream-key'), 'no key');
      assert.ok(receiver.requests.every((r) => r.path === '/v1/traces' && r.headers['x-collector-token'] === 'abc def'));
    });
  }

  test('failover: one attempt span per provider tried, the failed one with its status and error type', async () => {
    const primary = await addSimProvider(tg, { name: 'primary', models: ['gpt-4o-mini'], priority: 10 });
    try {
      primary.sim.enqueue({ kind: 'status', status: 503, retryAfterSeconds: 0 });
      const customer = await tg.customer(1);
      const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
      const tap = tapUsage(tg.gateway);
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] });
      const row = await tap.next((r) => r.account_id === customer.accountId);
      const { request, children } = await exported(row.request_id);
      assert.equal(request.parentSpanId, undefined, 'no traceparent: a root span');
      assert.equal(request.attributes['modelgate.provider_id'], tg.providerId);
      const attempts = children.filter((s) => s.kind === CLIENT).sort((a, b) => Number(a.attributes['modelgate.attempt']) - Number(b.attributes['modelgate.attempt']));
      assert.deepEqual(
        attempts.map((s) => [s.attributes['modelgate.provider_id'], s.attributes['http.response.status_code'], s.statusCode]),
        [
          [primary.id, 503, ERROR],
          [tg.providerId, 200, 0],
        ],
      );
      assert.equal(typeof attempts[0]!.attributes['error.type'], 'string');
    } finally {
      await tg.admin('DELETE', `/admin/providers/${primary.id}`);
      await primary.close();
    }
  });

  test('a refused request: the request span carries the status and error type, its admission span the error', async () => {
    // enough to pass the cheap balance check at the door, not for the reservation
    const customer = await tg.customer(0.000001);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    const tap = tapUsage(tg.gateway);
    const refused = client.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 1000, messages: [{ role: 'user', content: PROMPT }] });
    await assert.rejects(refused, (error: { status?: number }) => error.status === 402);
    const row = await tap.next((r) => r.account_id === customer.accountId);
    const { request, children } = await exported(row.request_id);
    assert.equal(request.attributes['http.response.status_code'], 402);
    assert.equal(request.attributes['error.type'], row.error_type);
    assert.equal(request.attributes['modelgate.cost_usd'], 0);
    assert.deepEqual(children.map((s) => [s.name, s.statusCode, s.attributes['error.type']]), [['admission', ERROR, row.error_type]]);
  });
});
