// Image generation with the official client: each model's rules from the specification's table,
// url and b64_json answers, links the gateway serves itself (signed, one hour), native models
// translated to the prediction upstream, content-policy refusals; billing per image by quality
// and size, refusals and rule breaks never charged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { pngSize } from '../../simulators/_kit/media/png.ts';
import type { Customer } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let mg: MediaGateway;
let tap: UsageTap;

before(async () => {
  mg = await startMediaGateway();
  tap = tapUsage(mg.gateway);
});
after(async () => mg.closeAll());

async function fetchPng(url: string): Promise<{ status: number; size?: { width: number; height: number }; type: string | null }> {
  const res = await fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), ...(res.ok && { size: pngSize(bytes) }) };
}

async function expectBadRequest(promise: Promise<unknown>, param: string, code?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal((error as { param?: string }).param, param);
    if (code) assert.equal((error as { code?: string }).code, code);
    return true;
  });
}

describe('image generation', () => {
  let customer: Customer;
  let client: OpenAI;
  before(async () => {
    customer = await mg.customer(10);
    client = mg.client(customer);
  });

  test('image-a-3 with url: a signed gateway link to a PNG of the size asked, the rewritten prompt, $0.04 for standard 1024²', async () => {
    const before = mg.balanceNano(customer.accountId);
    const result = await client.images.generate({ model: 'image-a-3', prompt: 'a lighthouse at dusk', size: '1024x1024' });
    assert.equal(result.data?.length, 1);
    const item = result.data![0]!;
    assert.match(item.revised_prompt ?? '', /lighthouse at dusk/);
    assert.ok(item.url?.startsWith(`${mg.origin}/media/`), item.url);
    assert.match(item.url!, /expires=\d+&sig=/);
    const expires = Number(new URL(item.url!).searchParams.get('expires'));
    assert.ok(Math.abs(expires - (Date.now() / 1000 + 3600)) < 60, 'the link lasts one hour');
    const fetched = await fetchPng(item.url!);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.type, 'image/png');
    assert.deepEqual(fetched.size, { width: 1024, height: 1024 });
    // the upstream was asked for bytes, so the gateway could serve the link itself
    const upstream = mg.sim!.requests.findLast((r) => r.path === '/v1/images/generations');
    assert.equal((upstream?.body as { response_format?: string }).response_format, 'b64_json');
    await tap.next((row) => row.account_id === customer.accountId);
    assert.equal(before - mg.balanceNano(customer.accountId), nano(0.04));
  });

  test('hd costs more: image-a-3 hd 1792x1024 is $0.12, standard 1792x1024 $0.08', async () => {
    const start = mg.balanceNano(customer.accountId);
    const hd = await client.images.generate({ model: 'image-a-3', prompt: 'a wide harbour', size: '1792x1024', quality: 'hd', response_format: 'b64_json' });
    assert.deepEqual(pngSize(Buffer.from(hd.data![0]!.b64_json!, 'base64')), { width: 1792, height: 1024 });
    const hdRow = await tap.next((row) => row.account_id === customer.accountId);
    assert.equal(hdRow.cost_nano, nano(0.12));
    await client.images.generate({ model: 'image-a-3', prompt: 'a wide harbour', size: '1792x1024', quality: 'standard', style: 'natural', response_format: 'b64_json' });
    const standardRow = await tap.next((row) => row.account_id === customer.accountId);
    assert.equal(standardRow.cost_nano, nano(0.08));
    assert.equal(start - mg.balanceNano(customer.accountId), nano(0.2));
    assert.equal(hdRow.units, 1);
  });

  test('image-a-2 b64_json, n = 3 at 256x256: three PNGs, 3 × $0.016', async () => {
    const result = await client.images.generate({ model: 'image-a-2', prompt: 'three small cats', n: 3, size: '256x256', response_format: 'b64_json' });
    assert.equal(result.data?.length, 3);
    for (const item of result.data!) assert.deepEqual(pngSize(Buffer.from(item.b64_json!, 'base64')), { width: 256, height: 256 });
    assert.equal(result.data![0]!.revised_prompt, undefined, 'only image-a-3 rewrites the prompt');
    const row = await tap.next((r) => r.account_id === customer.accountId);
    assert.equal(row.units, 3);
    assert.equal(row.cost_nano, 3 * nano(0.016));
  });

  test('image-b-1 always answers in bytes upstream; the gateway still serves a url; no response_format is sent upstream', async () => {
    const result = await client.images.generate({ model: 'image-b-1', prompt: 'a tall tower', size: '1024x1536' });
    const url = result.data![0]!.url!;
    assert.deepEqual((await fetchPng(url)).size, { width: 1024, height: 1536 });
    const upstream = mg.sim!.requests.findLast((r) => r.path === '/v1/images/generations');
    assert.equal((upstream?.body as Record<string, unknown>).response_format, undefined);
    const row = await tap.next((r) => r.account_id === customer.accountId);
    assert.equal(row.cost_nano, nano(0.063));
  });

  test('image-b-1.5: n up to 10, its own sizes', async () => {
    const result = await client.images.generate({ model: 'image-b-1.5', prompt: 'patterns', n: 2, size: '1536x1024', response_format: 'b64_json' });
    assert.equal(result.data?.length, 2);
    assert.equal((await tap.next((r) => r.account_id === customer.accountId)).cost_nano, 2 * nano(0.05));
  });

  test('every rule of the table is a 400 naming the field; nothing is charged', async () => {
    const start = mg.balanceNano(customer.accountId);
    await expectBadRequest(client.images.generate({ model: 'image-a-3', prompt: 'x', n: 2 }), 'n');
    await expectBadRequest(client.images.generate({ model: 'image-a-2', prompt: 'x', n: 11 }), 'n');
    await expectBadRequest(client.images.generate({ model: 'image-b-1', prompt: 'x', n: 11 }), 'n');
    await expectBadRequest(client.images.generate({ model: 'image-a-3', prompt: 'x', size: '512x512' }), 'size');
    await expectBadRequest(client.images.generate({ model: 'image-a-2', prompt: 'x', size: '1792x1024' }), 'size');
    await expectBadRequest(client.images.generate({ model: 'image-b-1', prompt: 'x', size: '256x256' }), 'size');
    await expectBadRequest(client.images.generate({ model: 'image-a-3', prompt: 'x', quality: 'ultra' as 'hd' }), 'quality');
    await expectBadRequest(client.images.generate({ model: 'image-a-2', prompt: 'x', quality: 'hd' }), 'quality');
    await expectBadRequest(client.images.generate({ model: 'image-b-1', prompt: 'x', quality: 'hd' }), 'quality');
    await expectBadRequest(client.images.generate({ model: 'image-a-2', prompt: 'x', style: 'vivid' }), 'style');
    await expectBadRequest(client.images.generate({ model: 'image-a-3', prompt: 'x', style: 'loud' as 'vivid' }), 'style');
    await expectBadRequest(client.images.generate({ model: 'image-a-3', prompt: 'p'.repeat(4001) }), 'prompt');
    await expectBadRequest(client.images.generate({ model: 'image-a-2', prompt: 'x', response_format: 'gif' as 'url' }), 'response_format');
    await expectBadRequest(client.images.generate({ model: 'tts-1', prompt: 'x' }), 'model');
    // exactly at the limit is fine
    await client.images.generate({ model: 'image-a-2', prompt: 'p'.repeat(4000), size: '256x256', response_format: 'b64_json' });
    await tap.next((r) => r.account_id === customer.accountId && r.status === 200);
    assert.equal(start - mg.balanceNano(customer.accountId), nano(0.016));
  });

  test('a content-policy refusal is 400 invalid_request_error content_policy_violation and costs nothing', async () => {
    const start = mg.balanceNano(customer.accountId);
    await assert.rejects(client.images.generate({ model: 'image-a-3', prompt: 'something forbidden [[sim:policy]]' }), (error: unknown) => {
      assert(error instanceof OpenAI.BadRequestError);
      assert.equal(error.code, 'content_policy_violation');
      assert.equal(error.type, 'invalid_request_error');
      return true;
    });
    const row = await tap.next((r) => r.account_id === customer.accountId);
    assert.equal(row.status, 400);
    assert.equal(row.cost_nano, 0);
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });
});

describe('native image models on /v1/images/generations', () => {
  let customer: Customer;
  let client: OpenAI;
  before(async () => {
    customer = await mg.customer(10);
    client = mg.client(customer);
  });

  test('size becomes an aspect ratio (and 2K) on the prediction upstream; b64_json as the spec shows; $0.04 per image', async () => {
    const result = await client.images.generate({ model: 'img-c-4.0-generate-001', prompt: 'mountains', n: 2, size: '1408x768' as '1024x1024', response_format: 'b64_json' });
    assert.equal(result.data?.length, 2);
    assert.deepEqual(pngSize(Buffer.from(result.data![0]!.b64_json!, 'base64')), { width: 1408, height: 768 });
    const upstream = mg.gemini.state.requests.at(-1)!;
    assert.equal(upstream.path, '/v1beta/models/img-c-4.0-generate-001:predict');
    assert.equal(upstream.headers['x-goog-api-key'], 'gemini-upstream-key');
    assert.deepEqual((upstream.body as { parameters: Record<string, unknown> }).parameters, { sampleCount: 2, includeRaiReason: true, aspectRatio: '16:9' });
    assert.equal((await tap.next((r) => r.account_id === customer.accountId)).cost_nano, 2 * nano(0.04));

    const big = await client.images.generate({ model: 'img-c-4.0-ultra-generate-001', prompt: 'mountains', size: '2048x2048' as '1024x1024' });
    assert.deepEqual((await fetchPng(big.data![0]!.url!)).size, { width: 2048, height: 2048 });
    assert.equal((mg.gemini.state.requests.at(-1)!.body as { parameters: Record<string, unknown> }).parameters.sampleImageSize, '2K');
    assert.equal((await tap.next((r) => r.account_id === customer.accountId)).cost_nano, nano(0.06));
  });

  test('native rules: Ultra makes one image; Fast has no 2K sizes; unknown sizes are named', async () => {
    await expectBadRequest(client.images.generate({ model: 'img-c-4.0-ultra-generate-001', prompt: 'x', n: 2 }), 'n');
    await expectBadRequest(client.images.generate({ model: 'img-c-4.0-generate-001', prompt: 'x', n: 5 }), 'n');
    await expectBadRequest(client.images.generate({ model: 'img-c-4.0-fast-generate-001', prompt: 'x', size: '2048x2048' as '1024x1024' }), 'size');
    await expectBadRequest(client.images.generate({ model: 'img-c-3.0-generate-002', prompt: 'x', size: '1792x1024' }), 'size');
  });

  test('filtered images are neither returned nor billed; all filtered is a content-policy refusal', async () => {
    const result = await client.images.generate({ model: 'img-c-4.0-fast-generate-001', prompt: 'crowd [[sim:filter=1]]', n: 3, response_format: 'b64_json' });
    assert.equal(result.data?.length, 2);
    const row = await tap.next((r) => r.account_id === customer.accountId);
    assert.equal(row.units, 2);
    assert.equal(row.cost_nano, 2 * nano(0.02));
    const start = mg.balanceNano(customer.accountId);
    await expectBadRequest(client.images.generate({ model: 'img-c-4.0-fast-generate-001', prompt: 'crowd [[sim:filter=2]]', n: 2 }), 'prompt', 'content_policy_violation');
    await expectBadRequest(client.images.generate({ model: 'img-c-4.0-fast-generate-001', prompt: 'blocked [[sim:policy]]' }), 'prompt', 'content_policy_violation');
    assert.equal(mg.balanceNano(customer.accountId), start);
    await mg.assertBillingInvariants(customer.accountId);
  });
});

describe('signed links', () => {
  test('a tampered signature or expiry is 403, a link past its hour 410, an unknown object 404', async () => {
    const customer = await mg.customer(1);
    const result = await mg.client(customer).images.generate({ model: 'image-a-2', prompt: 'keys', size: '256x256' });
    const url = new URL(result.data![0]!.url!);
    assert.equal((await fetch(url)).status, 200);
    const badSig = new URL(url);
    // change one character for certain: writing "AA" over the last two left a signature that ended so as it was (CI met one)
    const sig = url.searchParams.get('sig')!;
    badSig.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const res403 = await fetch(badSig);
    assert.equal(res403.status, 403);
    assert.equal(((await res403.json()) as { error: { code: string } }).error.code, 'invalid_signature');
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    assert.equal((await fetch(later)).status, 403, 'moving the expiry breaks the signature');
    const noSig = new URL(url);
    noSig.searchParams.delete('sig');
    assert.equal((await fetch(noSig)).status, 403);

    // an object stored two hours ago: its link (genuinely signed) has expired
    const old = await mg.gateway.media.save({ accountId: customer.accountId, kind: 'image', contentType: 'image/png', data: Buffer.from('x') }, Date.now() - 2 * 3600 * 1000);
    const res410 = await fetch(mg.gateway.media.link(old));
    assert.equal(res410.status, 410);
    assert.equal(((await res410.json()) as { error: { code: string } }).error.code, 'link_expired');
    // the sweeper removes expired objects (the link stays 410); a genuine link to nothing is 404
    assert.ok((await mg.gateway.media.sweep()) >= 1);
    assert.equal((await fetch(mg.gateway.media.link(old))).status, 410);
    const missing = await fetch(mg.gateway.media.link({ ...old, id: 'img_doesnotexist', expires_at: Date.now() + 60_000 }));
    assert.equal(missing.status, 404);
    await mg.assertBillingInvariants(customer.accountId);
  });
});
