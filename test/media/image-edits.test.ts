// Image edits with the official client (multipart) and as the specification's JSON body (image
// as Base64), variations, the models allowed to edit, and billing per image.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { makePng, pngSize } from '../../simulators/_kit/media/png.ts';
import type { Customer } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let mg: MediaGateway;
let tap: UsageTap;
let customer: Customer;
let client: OpenAI;

before(async () => {
  mg = await startMediaGateway();
  tap = tapUsage(mg.gateway);
  customer = await mg.customer(10);
  client = mg.client(customer);
});
after(async () => mg.closeAll());
const rowOf = () => tap.next((row) => row.account_id === customer.accountId);
const SOURCE = makePng(512, 512, 42);

describe('image edits', () => {
  test('multipart from the official client (image-a-2, with a mask): a url to the edited PNG; the files reach the upstream; $0.018 at 512²', async () => {
    const result = await client.images.edit({
      model: 'image-a-2',
      image: await toFile(SOURCE, 'room.png', { type: 'image/png' }),
      mask: await toFile(SOURCE, 'mask.png', { type: 'image/png' }),
      prompt: 'add a window',
      size: '512x512',
    });
    const res = await fetch(result.data![0]!.url!);
    assert.deepEqual(pngSize(new Uint8Array(await res.arrayBuffer())), { width: 512, height: 512 });
    const sent = mg.sim!.requests.findLast((r) => r.path === '/v1/images/edits')?.body as Record<string, unknown>;
    assert.equal(sent.model, 'image-a-2');
    assert.equal(sent.prompt, 'add a window');
    assert.equal(sent.response_format, 'b64_json');
    assert.equal((await rowOf()).cost_nano, nano(0.018));
  });

  test('the specification’s JSON body: image as Base64 (a data URL works too), b64_json answer, n = 2', async () => {
    const res = await mg.post('/v1/images/edits', customer.key, {
      model: 'image-a-2',
      prompt: 'make it blue',
      image: `data:image/png;base64,${SOURCE.toString('base64')}`,
      n: 2,
      size: '256x256',
      response_format: 'b64_json',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.length, 2);
    assert.deepEqual(pngSize(Buffer.from(res.body.data[0].b64_json, 'base64')), { width: 256, height: 256 });
    const row = await rowOf();
    assert.equal(row.units, 2);
    assert.equal(row.cost_nano, 2 * nano(0.016));
  });

  test('image-b-1 edits several images (image[]); image-a-3 cannot edit; missing image or prompt is a 400; none of those charged', async () => {
    const result = await client.images.edit({
      model: 'image-b-1',
      image: [await toFile(SOURCE, 'a.png', { type: 'image/png' }), await toFile(SOURCE, 'b.png', { type: 'image/png' })],
      prompt: 'combine them',
    });
    assert.ok(result.data![0]!.url);
    assert.equal((await rowOf()).cost_nano, nano(0.042));
    const start = mg.balanceNano(customer.accountId);
    await assert.rejects(
      client.images.edit({ model: 'image-a-3', image: await toFile(SOURCE, 'a.png'), prompt: 'x' }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'model',
    );
    const noImage = await mg.post('/v1/images/edits', customer.key, { model: 'image-a-2', prompt: 'x' });
    assert.equal(noImage.body.error.param, 'image');
    const noPrompt = await mg.post('/v1/images/edits', customer.key, { model: 'image-a-2', image: SOURCE.toString('base64') });
    assert.equal(noPrompt.body.error.param, 'prompt');
    const badN = await mg.post('/v1/images/edits', customer.key, { model: 'image-a-2', prompt: 'x', image: SOURCE.toString('base64'), n: 11 });
    assert.equal(badN.body.error.param, 'n');
    assert.equal(mg.balanceNano(customer.accountId), start);
  });
});

describe('image variations', () => {
  test('image-a-2 only: multipart from the official client, per image', async () => {
    const result = await client.images.createVariation({ model: 'image-a-2', image: await toFile(SOURCE, 'cat.png', { type: 'image/png' }), n: 2, size: '256x256', response_format: 'b64_json' });
    assert.equal(result.data?.length, 2);
    assert.equal((await rowOf()).cost_nano, 2 * nano(0.016));
    await assert.rejects(
      client.images.createVariation({ model: 'image-b-1', image: await toFile(SOURCE, 'cat.png') }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'model',
    );
    await mg.assertBillingInvariants(customer.accountId);
  });
});
