// Native image prediction (POST /v1beta/models/{model}:predict) over raw HTTP: the spec's
// answer form with a Bearer key, the vendor's with x-goog-api-key; every parameter rule with the
// Google error envelope; per-image billing. And Google's own client, which reaches it only in
// its Vertex express mode (it calls :predict for Imagen only there).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { pngSize } from '../../simulators/_kit/media/png.ts';
import type { Customer } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let mg: MediaGateway;
let tap: UsageTap;
let customer: Customer;

before(async () => {
  mg = await startMediaGateway();
  tap = tapUsage(mg.gateway);
  customer = await mg.customer(10);
});
after(async () => mg.closeAll());

const predict = (model: string, body: unknown, auth: 'bearer' | 'google' = 'bearer', key = customer.key) =>
  mg.post(`/v1beta/models/${model}:predict`, key, body, auth === 'google' ? { authorization: '', 'x-goog-api-key': key } : {});
const rowOf = () => tap.next((row) => row.account_id === customer.accountId);

describe(':predict', () => {
  test('Bearer: the spec’s form (bytesBase64Encoded: true, image.imageBytes); default sampleCount 4; $0.04 each', async () => {
    const res = await predict('img-c-4.0-generate-001', { instances: [{ prompt: 'a red fox' }], parameters: { aspectRatio: '3:4' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.predictions.length, 4);
    for (const p of res.body.predictions) {
      assert.equal(p.bytesBase64Encoded, true);
      assert.equal(p.mimeType, 'image/png');
      assert.deepEqual(pngSize(Buffer.from(p.image.imageBytes, 'base64')), { width: 896, height: 1280 });
    }
    const upstream = mg.gemini.state.requests.at(-1)!;
    assert.deepEqual((upstream.body as { parameters: unknown }).parameters, { sampleCount: 4, includeRaiReason: true, aspectRatio: '3:4' });
    const row = await rowOf();
    assert.equal(row.units, 4);
    assert.equal(row.cost_nano, 4 * nano(0.04));
    assert.equal(row.endpoint, '/v1beta/models/{model}:predict');
  });

  test('x-goog-api-key: the vendor’s form (bytesBase64Encoded holds the Base64); imageSize 2K (or sampleImageSize) and quality read from parameters', async () => {
    const res = await predict('img-c-4.0-ultra-generate-001', { instances: [{ prompt: 'a castle' }], parameters: { sampleCount: 1, imageSize: '2K', quality: 'medium', personGeneration: 'ALLOW_ADULT' } }, 'google');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [p] = res.body.predictions;
    assert.equal(typeof p.bytesBase64Encoded, 'string');
    assert.equal(p.image, undefined);
    assert.deepEqual(pngSize(Buffer.from(p.bytesBase64Encoded, 'base64')), { width: 2048, height: 2048 });
    const parameters = (mg.gemini.state.requests.at(-1)!.body as { parameters: Record<string, unknown> }).parameters;
    assert.equal(parameters.sampleImageSize, '2K');
    assert.equal(parameters.personGeneration, 'allow_adult');
    assert.equal((await rowOf()).cost_nano, nano(0.06));

    const wire = await predict('img-c-4.0-generate-001', { instances: [{ prompt: 'a castle' }], parameters: { sampleCount: 1, sampleImageSize: '2K', aspectRatio: '16:9' } }, 'google');
    assert.deepEqual(pngSize(Buffer.from(wire.body.predictions[0].bytesBase64Encoded, 'base64')), { width: 2816, height: 1536 });
    await rowOf();
  });

  test('every rule is a 400 in the Google envelope naming the field; nothing is charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    const expect400 = async (model: string, body: unknown, field: RegExp) => {
      const res = await predict(model, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 400);
      assert.equal(res.body.error.status, 'INVALID_ARGUMENT');
      assert.match(res.body.error.message, field);
    };
    const prompt = (extra: Record<string, unknown> = {}) => ({ instances: [{ prompt: 'a dog' }], parameters: extra });
    await expect400('img-c-4.0-generate-001', prompt({ sampleCount: 5 }), /sampleCount/);
    await expect400('img-c-4.0-generate-001', prompt({ sampleCount: 0 }), /sampleCount/);
    await expect400('img-c-4.0-ultra-generate-001', prompt({ sampleCount: 2 }), /sampleCount must be 1/);
    await expect400('img-c-4.0-ultra-generate-001', prompt({ sampleCount: 4 }), /sampleCount/);
    await expect400('img-c-4.0-generate-001', prompt({ aspectRatio: '2:1' }), /aspectRatio/);
    await expect400('img-c-4.0-generate-001', prompt({ personGeneration: 'everyone' }), /personGeneration/);
    await expect400('img-c-4.0-generate-001', prompt({ imageSize: '4K' }), /imageSize/);
    await expect400('img-c-4.0-fast-generate-001', prompt({ imageSize: '2K' }), /imageSize is only available on the Standard and Ultra/);
    await expect400('img-c-3.0-generate-002', prompt({ imageSize: '1K' }), /imageSize/);
    await expect400('img-c-4.0-generate-001', prompt({ quality: 'hd' }), /quality/);
    await expect400('img-c-4.0-generate-001', { instances: [{ prompt: 'word '.repeat(481) }] }, /at most 480 are allowed/);
    await expect400('img-c-4.0-generate-001', { instances: [] }, /instances/);
    await expect400('img-c-4.0-generate-001', { parameters: {} }, /instances/);
    await expect400('image-a-3', prompt(), /not a native image prediction model/);
    // exactly at the limits is accepted
    const ok = await predict('img-c-4.0-fast-generate-001', { instances: [{ prompt: 'word '.repeat(480).trim() }], parameters: { sampleCount: 1 } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(start - mg.balanceNano(customer.accountId), nano(0.02));
    await rowOf();
  });

  test('auth and failures in the Google envelope: no key 401 UNAUTHENTICATED, unknown model 404, blocked prompt 400 not charged, upstream 503 not charged', async () => {
    const noKey = await fetch(`${mg.origin}/v1beta/models/img-c-4.0-generate-001:predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
    const unknown = await predict('img-z-9', { instances: [{ prompt: 'x' }] });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.status, 'NOT_FOUND');
    const start = mg.balanceNano(customer.accountId);
    const blocked = await predict('img-c-4.0-generate-001', { instances: [{ prompt: 'forbidden [[sim:policy]]' }] });
    assert.equal(blocked.status, 400);
    assert.equal(blocked.body.error.details[0].reason, 'CONTENT_POLICY_VIOLATION');
    mg.gemini.state.failures.push({ status: 503 });
    const down = await predict('img-c-4.0-generate-001', { instances: [{ prompt: 'x' }], parameters: { sampleCount: 1 } });
    assert.equal(down.status, 502);
    assert.equal(down.body.error.status, 'UNAVAILABLE');
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });

  test('Google’s client (@google/genai 3, Vertex express mode with an API key) generates images through the gateway', async () => {
    const ai = new GoogleGenAI({ vertexai: true, apiKey: customer.key, httpOptions: { baseUrl: mg.origin, apiVersion: 'v1beta' } });
    const response = await ai.models.generateImages({
      model: 'models/img-c-4.0-generate-001',
      prompt: 'a lighthouse',
      config: { numberOfImages: 2, aspectRatio: '16:9', imageSize: '2K' },
    });
    assert.equal(response.generatedImages?.length, 2);
    const bytes = Buffer.from(response.generatedImages![0]!.image!.imageBytes!, 'base64');
    assert.deepEqual(pngSize(bytes), { width: 2816, height: 1536 });
    const row = await tap.next((r) => r.account_id === customer.accountId && r.status === 200);
    assert.equal(row.cost_nano, 2 * nano(0.04));
    // the Gemini-API mode of the same client refuses before sending anything
    const gemini = new GoogleGenAI({ apiKey: customer.key, httpOptions: { baseUrl: mg.origin } });
    await assert.rejects(gemini.models.generateImages({ model: 'img-c-4.0-generate-001', prompt: 'x' }), /only supported by the Gemini Enterprise Agent Platform/);
  });
});
