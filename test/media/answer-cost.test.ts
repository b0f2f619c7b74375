// Cost on media answers (contract §4): `x-modelgate-cost` on every non-streamed answer (speech
// included, its bytes relayed as they come: the cost is known from the request), and `usage.cost`
// in the bodies that carry a usage object. Each equals the charge in the usage row.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { toFile } from 'openai';
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import type { Customer } from '../helpers/gateway.ts';
import { startMediaGateway, type MediaGateway } from '../helpers/media.ts';
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
const costOfRow = async () => (await tap.next((row) => row.account_id === customer.accountId)).cost_nano as number;
const usd = (header: string | null) => Math.round(Number(header) * 1e9);

test('speech: the header is the charge', async () => {
  const response = await mg.client(customer).audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'The quick brown fox.' });
  await response.arrayBuffer();
  const cost = await costOfRow();
  assert.ok(cost > 0);
  assert.equal(usd(response.headers.get('x-modelgate-cost')), cost);
  assert.equal(response.headers.get('x-modelgate-cost-estimated'), null);
});

test('images: the header is the charge', async () => {
  const { response } = await mg.client(customer).images.generate({ model: 'image-a-3', prompt: 'a lighthouse at dusk', size: '1024x1024' }).withResponse();
  const cost = await costOfRow();
  assert.ok(cost > 0);
  assert.equal(usd(response.headers.get('x-modelgate-cost')), cost);
});

test('rerank: usage.cost and the header are the charge', async () => {
  const res = await mg.post('/v1/rerank', customer.key, { model: 'jina-reranker-v2-base-multilingual', query: 'capital of France', documents: ['Paris is the capital of France.', 'Bananas are yellow.'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const cost = await costOfRow();
  assert.ok(cost > 0);
  assert.equal(usd(res.headers.get('x-modelgate-cost')), cost);
  assert.equal(Math.round(res.body.usage.cost * 1e9), cost);
});

test('transcription: the header is the charge, json or text (a text transcript is left as it is)', async () => {
  const wav = makeAudio('wav', 3.2);
  for (const format of ['json', 'text'] as const) {
    const { response } = await mg.client(customer).audio.transcriptions.create({ file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }), model: 'whisper-1', response_format: format }).withResponse();
    const cost = await costOfRow();
    assert.ok(cost > 0);
    assert.equal(usd(response.headers.get('x-modelgate-cost')), cost);
  }
});

test('video submission: the header is what its job holds, marked estimated (the job is charged when it ends)', async () => {
  const { response } = await mg.client(customer).videos.create({ model: 'sora-2', prompt: 'a paper boat', seconds: '4' }).withResponse();
  assert.equal(usd(response.headers.get('x-modelgate-cost')), 4 * 100_000_000); // 4 s × $0.10
  assert.equal(response.headers.get('x-modelgate-cost-estimated'), 'true');
});
