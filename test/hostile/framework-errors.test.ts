// What Fastify and Node's HTTP parser refuse before any route runs (found by the fuzz suite):
// a path with malformed percent-encoding and headers past 16 KiB were answered with Fastify's own
// `{"error": "Bad Request", "statusCode"}` body, which no client SDK reads as an error envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
let customer: Customer;

before(async () => {
  tg = await startTestGateway();
  customer = await tg.customer(1);
});
after(async () => {
  await tg.close();
});

describe('refusals before routing come in the gateway envelope', () => {
  test('a lone surrogate percent-encoded in the path: 400 in the OpenAI envelope', async () => {
    const response = await fetch(`${tg.origin}/v1/models/%ED%A0%80`, { headers: { authorization: `Bearer ${customer.key}` } });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { message: string; type: string; param: unknown; code: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.error.code, 'invalid_path');
    assert.equal(body.error.param, null);
    assert.match(body.error.message, /percent-encoding/);
  });

  test('the same on the Google routes: 400 in the Google envelope', async () => {
    const response = await fetch(`${tg.origin}/v1beta/models/%ED%A0%80:predict`, { method: 'POST', headers: { 'x-goog-api-key': customer.key } });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: number; status: string; message: string } };
    assert.equal(body.error.code, 400);
    assert.equal(typeof body.error.status, 'string');
  });

  test('headers past 16 KiB: 431 in the OpenAI envelope, naming the limit', async () => {
    const response = await fetch(`${tg.origin}/admin/usage?model=${'m'.repeat(20_000)}`, { headers: { authorization: 'Bearer x' } });
    assert.equal(response.status, 431);
    // written to the socket by hand: the status line carries Node's reason phrase
    assert.equal(response.statusText, 'Request Header Fields Too Large');
    const body = (await response.json()) as { error: { message: string; type: string; param: unknown; code: string } };
    assert.equal(body.error.code, 'headers_too_large');
    assert.equal(body.error.param, null);
    assert.match(body.error.message, /16 KiB/);
  });
});
