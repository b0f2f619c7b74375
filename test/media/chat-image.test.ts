// `modality: "image"` on chat completions: the reply carries the text in message.content and the
// images as message.images [{type: "image_url", image_url: {url: "data:…"}}] (the shape
// OpenRouter uses), streamed as delta.images; only models that can draw accept it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { pngSize } from '../../simulators/_kit/media/png.ts';
import type { Customer } from '../helpers/gateway.ts';
import { startMediaGateway, type MediaGateway } from '../helpers/media.ts';
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

interface ImagePart {
  type: string;
  image_url: { url: string };
}

const decode = (url: string) => {
  const match = /^data:image\/png;base64,(.+)$/.exec(url);
  assert(match, url);
  return pngSize(Buffer.from(match[1]!, 'base64'));
};

describe('chat with modality "image"', () => {
  test('the answer carries text and images; the upstream was asked with modalities ["image", "text"]; image tokens are billed', async () => {
    const reply = await client.chat.completions.create({ model: 'gemini-2.5-flash-image', messages: [{ role: 'user', content: 'draw a cat' }], modality: 'image' } as never);
    const message = (reply as OpenAI.ChatCompletion).choices[0]!.message as OpenAI.ChatCompletionMessage & { images?: ImagePart[] };
    assert.match(message.content ?? '', /draw a cat/);
    assert.equal(message.images?.length, 1);
    assert.equal(message.images![0]!.type, 'image_url');
    assert.deepEqual(decode(message.images![0]!.image_url.url), { width: 64, height: 64 });
    const sent = mg.sim!.requests.findLast((r) => r.path === '/v1/chat/completions')?.body as Record<string, unknown>;
    assert.deepEqual(sent.modalities, ['image', 'text']);
    assert.equal(sent.modality, undefined);
    const row = await tap.next((r) => r.account_id === customer.accountId);
    assert.ok(row.completion_tokens > 1290, 'the image counts as output tokens');
    // $30 per million output tokens
    assert.ok(row.cost_nano >= 1290 * 30_000);
  });

  test('streaming: delta.images arrives in a chunk of its own, before the finish', async () => {
    const stream = await client.chat.completions.create({ model: 'gemini-2.5-flash-image', messages: [{ role: 'user', content: 'draw a dog' }], modality: 'image', stream: true } as never);
    let text = '';
    const images: ImagePart[] = [];
    let finish: string | null = null;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      images.push(...((choice.delta as { images?: ImagePart[] }).images ?? []));
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        assert.equal(images.length, 1, 'images come before the finish chunk');
      }
    }
    assert.match(text, /draw a dog/);
    assert.equal(finish, 'stop');
    assert.deepEqual(decode(images[0]!.image_url.url), { width: 64, height: 64 });
    await tap.next((r) => r.account_id === customer.accountId);
  });

  test('a model that cannot output images refuses modality "image" with a 400 naming it; "text" is plain chat', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], modality: 'image' } as never),
      (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'modality',
    );
    const plain = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], modality: 'text' } as never);
    assert.equal(((plain as OpenAI.ChatCompletion).choices[0]!.message as { images?: unknown }).images, undefined);
    await tap.next((r) => r.account_id === customer.accountId);
    await mg.assertBillingInvariants(customer.accountId);
  });
});
