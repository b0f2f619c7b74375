// `modality: "image"` on chat completions against a Gemini-family provider: the gateway asks with
// generationConfig.responseModalities ["TEXT", "IMAGE"] (never `modality`), and the vendor's
// `inlineData` image parts come back as OpenRouter's message.images / delta.images data URLs, to
// the official `openai` client; image tokens are output tokens and billed exactly. The family's
// simulator draws real PNGs and, like the vendor, refuses IMAGE for models that cannot draw.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { pngSize } from '../../simulators/_kit/media/png.ts';
import { IMAGE_OUTPUT_TOKENS } from '../../simulators/gemini/reply.ts';
import { assertChargedExactly, assertNotCharged } from '../helpers/billing.ts';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

const DRAWS = 'gemini-2.5-flash-image';
const TEXT_ONLY = 'gemini-2.5-flash';
const CHAT = '/v1/chat/completions';
const CREDIT = 5;
const START = CREDIT * 1e9;

let tg: TestGateway;
let gemini: FamilyUpstream;

before(async () => {
  tg = await startTestGateway({ simulator: false });
  gemini = await addFamilyProvider(tg, 'gemini', { models: [DRAWS, TEXT_ONLY] });
});
after(async () => {
  await tg.close();
  await gemini.close();
});

interface ImagePart {
  type: string;
  image_url: { url: string };
}
type ImageMessage = OpenAI.ChatCompletionMessage & { images?: ImagePart[] };

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
const usageOf = (u: OpenAI.CompletionUsage) => ({ prompt: u.prompt_tokens, completion: u.completion_tokens, cached: u.prompt_tokens_details?.cached_tokens ?? 0 });

/** A data URL's bytes must be a real PNG: its size from the header (undefined when it is not one). */
function decodePng(part: ImagePart): { width: number; height: number } | undefined {
  assert.equal(part.type, 'image_url');
  const match = /^data:image\/png;base64,([A-Za-z0-9+/]+=*)$/.exec(part.image_url.url);
  assert(match, `a PNG data URL, got ${part.image_url.url.slice(0, 40)}…`);
  return pngSize(Buffer.from(match[1]!, 'base64'));
}

function lastUpstream(): { path: string; body: Record<string, any> } {
  const request = gemini.requests.at(-1)!;
  return { path: request.path, body: request.body as Record<string, any> };
}

describe('chat with modality "image" through a Gemini-family provider', () => {
  test('plain: text in content, a valid PNG in message.images; upstream asked with responseModalities; billed exactly', async () => {
    const c = await tg.customer(CREDIT);
    const reply = (await sdk(c).chat.completions.create({ model: DRAWS, messages: [{ role: 'user', content: 'draw a cat' }], modality: 'image' } as never)) as OpenAI.ChatCompletion;
    const message = reply.choices[0]!.message as ImageMessage;
    assert.match(message.content ?? '', /Echo: draw a cat/);
    assert.equal(message.images?.length, 1);
    assert.deepEqual(decodePng(message.images![0]!), { width: 64, height: 64 });
    assert.equal(reply.choices[0]!.finish_reason, 'stop');

    const sent = lastUpstream();
    assert.match(sent.path, /\/models\/gemini-2\.5-flash-image:generateContent$/);
    assert.deepEqual(sent.body.generationConfig?.responseModalities, ['TEXT', 'IMAGE']);
    assert.ok(!JSON.stringify(sent.body).includes('modality"'), 'the gateway’s own field never goes upstream');

    assert.ok(reply.usage!.completion_tokens > IMAGE_OUTPUT_TOKENS, 'image tokens are output tokens');
    await assertChargedExactly(tg, c.accountId, START, DRAWS, usageOf(reply.usage!), CHAT);
  });

  test('n = 2: each choice carries its own image', async () => {
    const c = await tg.customer(CREDIT);
    const reply = (await sdk(c).chat.completions.create({ model: DRAWS, n: 2, messages: [{ role: 'user', content: 'draw two birds' }], modality: 'image' } as never)) as OpenAI.ChatCompletion;
    assert.equal(reply.choices.length, 2);
    const urls = reply.choices.map((choice) => {
      const images = (choice.message as ImageMessage).images!;
      assert.equal(images.length, 1);
      assert.deepEqual(decodePng(images[0]!), { width: 64, height: 64 });
      return images[0]!.image_url.url;
    });
    assert.notEqual(urls[0], urls[1]);
    assert.ok(reply.usage!.completion_tokens > 2 * IMAGE_OUTPUT_TOKENS);
    await assertChargedExactly(tg, c.accountId, START, DRAWS, usageOf(reply.usage!), CHAT);
  });

  test('streaming: role chunk, text, the image in a chunk of its own, then the finish; usage exact', async () => {
    const c = await tg.customer(CREDIT);
    const stream = await sdk(c).chat.completions.create({
      model: DRAWS,
      messages: [{ role: 'user', content: 'draw a dog' }],
      modality: 'image',
      stream: true,
      stream_options: { include_usage: true },
    } as never);
    const order: string[] = [];
    let text = '';
    const images: ImagePart[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & { images?: ImagePart[] };
      if (delta.role) order.push('role');
      if (delta.content) {
        text += delta.content;
        if (order.at(-1) !== 'text') order.push('text');
      }
      if (delta.images) {
        assert.equal(delta.content, undefined, 'an image chunk carries no text');
        images.push(...delta.images);
        order.push('image');
      }
      if (choice.finish_reason) order.push(`finish:${choice.finish_reason}`);
    }
    assert.deepEqual(order, ['role', 'text', 'image', 'finish:stop']);
    assert.match(text, /Echo: draw a dog/);
    assert.equal(images.length, 1);
    assert.deepEqual(decodePng(images[0]!), { width: 64, height: 64 });

    const sent = lastUpstream();
    assert.match(sent.path, /:streamGenerateContent\?alt=sse$/);
    assert.deepEqual(sent.body.generationConfig?.responseModalities, ['TEXT', 'IMAGE']);
    assert.ok(usage && usage.completion_tokens > IMAGE_OUTPUT_TOKENS);
    await assertChargedExactly(tg, c.accountId, START, DRAWS, usageOf(usage), CHAT);
  });

  test('the SDK’s stream helper tolerates delta.images and keeps the text intact', async () => {
    const c = await tg.customer(CREDIT);
    const final = await sdk(c)
      .chat.completions.stream({ model: DRAWS, messages: [{ role: 'user', content: 'draw a fox' }], modality: 'image', stream_options: { include_usage: true } } as never)
      .finalChatCompletion();
    const message = final.choices[0]!.message as ImageMessage;
    assert.match(message.content ?? '', /Echo: draw a fox/);
    assert.equal(final.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(decodePng(message.images![0]!), { width: 64, height: 64 });
    await assertChargedExactly(tg, c.accountId, START, DRAWS, usageOf(final.usage!), CHAT);
  });

  test('a Gemini model that cannot draw: 400 naming modality, nothing sent upstream, not charged; "text" is plain chat', async () => {
    const c = await tg.customer(CREDIT);
    const before = gemini.requests.length;
    await assert.rejects(
      sdk(c).chat.completions.create({ model: TEXT_ONLY, messages: [{ role: 'user', content: 'x' }], modality: 'image' } as never),
      (e: unknown) => e instanceof OpenAI.BadRequestError && (e as { param?: string }).param === 'modality',
    );
    assert.equal(gemini.requests.length, before, 'refused before the upstream');
    await assertNotCharged(tg, c.accountId, START);

    const plain = (await sdk(c).chat.completions.create({ model: TEXT_ONLY, messages: [{ role: 'user', content: 'x' }], modality: 'text' } as never)) as OpenAI.ChatCompletion;
    assert.equal((plain.choices[0]!.message as ImageMessage).images, undefined);
    assert.equal(lastUpstream().body.generationConfig?.responseModalities, undefined);
    await assertChargedExactly(tg, c.accountId, START, TEXT_ONLY, usageOf(plain.usage!), CHAT);
  });

  test('/v1/messages has no image output: modality "image" is a 400 naming it, not charged', async () => {
    const c = await tg.customer(CREDIT);
    const before = gemini.requests.length;
    const res = await fetch(`${tg.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': c.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: DRAWS, max_tokens: 100, messages: [{ role: 'user', content: 'draw' }], modality: 'image' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /modality/);
    assert.equal(gemini.requests.length, before);
    await assertNotCharged(tg, c.accountId, START);
  });
});

describe('the Gemini simulator’s image output (as the vendor answers)', () => {
  const call = (model: string, method: string, body: unknown) =>
    fetch(`${gemini.baseUrl}/models/${model}:${method}`, { method: 'POST', headers: { 'x-goog-api-key': gemini.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ask = (modalities: string[]) => ({ contents: [{ role: 'user', parts: [{ text: 'draw a tree' }] }], generationConfig: { responseModalities: modalities } });

  test('generateContent: a text part, then an inlineData PNG; the image counts in candidatesTokenCount', async () => {
    const res = await call(DRAWS, 'generateContent', ask(['TEXT', 'IMAGE']));
    assert.equal(res.status, 200);
    const json = (await res.json()) as any;
    const parts = json.candidates[0].content.parts;
    assert.equal(typeof parts[0].text, 'string');
    assert.equal(parts[1].inlineData.mimeType, 'image/png');
    assert.deepEqual(pngSize(Buffer.from(parts[1].inlineData.data, 'base64')), { width: 64, height: 64 });
    assert.ok(json.usageMetadata.candidatesTokenCount > IMAGE_OUTPUT_TOKENS);
  });

  test('?alt=sse: the image arrives whole in the last event, with the finish reason', async () => {
    const res = await call(DRAWS, 'streamGenerateContent?alt=sse', ask(['TEXT', 'IMAGE']));
    assert.equal(res.status, 200);
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => JSON.parse(e.slice(6)) as any);
    const last = events.at(-1)!.candidates[0];
    assert.equal(last.finishReason, 'STOP');
    assert.equal(last.content.parts.length, 1);
    assert.deepEqual(pngSize(Buffer.from(last.content.parts[0].inlineData.data, 'base64')), { width: 64, height: 64 });
    assert.ok(events.slice(0, -1).every((e) => e.candidates[0].content.parts.every((p: any) => typeof p.text === 'string')));
  });

  test('a model that cannot draw refuses IMAGE as the vendor does; a bad modality name is refused', async () => {
    const refused = await call(TEXT_ONLY, 'generateContent', ask(['TEXT', 'IMAGE']));
    assert.equal(refused.status, 400);
    assert.deepEqual(((await refused.json()) as any).error, { code: 400, status: 'INVALID_ARGUMENT', message: 'Model does not support the requested response modalities: image' });
    const bad = await call(DRAWS, 'generateContent', ask(['TEXT', 'PICTURE']));
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /response_modalities\[1\]/);
  });
});
