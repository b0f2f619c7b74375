// Upstream features that cost money beyond the tokens (a service tier, web search, audio output,
// long context, image quality) are charged at their price when the model has one, and refused
// with a 400 naming the field when it has none: nothing forwarded, nothing charged. Official SDKs
// against the simulators; charges checked to the nano-dollar from the usage the simulator reported.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { makePng } from '../../simulators/_kit/media/png.ts';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';

const CREDIT = 5;
const START = nano(CREDIT);
/** nano-dollars per token of a USD-per-million-tokens price */
const perToken = (usdPerMtok: number) => Math.round(usdPerMtok * 1000);

async function expect400(promise: Promise<unknown>, param: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    const e = error as { status?: number; error?: { error?: { message?: string } }; param?: string };
    assert.equal(e.status, 400, String(error));
    // the OpenAI envelope has `param`; the messages envelope names the field in its message
    if (e.param !== undefined) assert.equal(e.param, param);
    else assert.ok(e.error?.error?.message?.startsWith(`${param}:`), `the refusal names ${param}: ${JSON.stringify(e.error)}`);
    return true;
  });
}

describe('OpenAI chat: service tier, web search, audio output', () => {
  let tg: TestGateway;
  const chats = () => tg.sim!.requests.filter((r) => r.path.endsWith('/chat/completions'));
  const client = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });

  before(async () => {
    tg = await startTestGateway({ models: ['gpt-4o-mini', 'gpt-5', 'gpt-4o-search-preview', 'gpt-4o-audio-preview'] });
  });
  after(() => tg.close());

  test('unpriced features are refused naming the field: nothing reaches the vendor, nothing is charged', async () => {
    const c = await tg.customer(CREDIT);
    tg.sim!.reset();
    const messages = [{ role: 'user' as const, content: 'paid?' }];
    // gpt-4o-mini has a priority price but no flex price, no web search price, no audio price
    await expect400(client(c).chat.completions.create({ model: 'gpt-4o-mini', messages, service_tier: 'flex' }), 'service_tier');
    await expect400(client(c).chat.completions.create({ model: 'gpt-4o-mini', messages, web_search_options: {} }), 'web_search_options');
    await expect400(client(c).chat.completions.create({ model: 'gpt-4o-mini', messages, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }), 'modalities');
    await expect400(client(c).chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, service_tier: 'scale' as 'flex' }), 'service_tier');
    // audio in the prompt is billed at the audio input price: none here
    const spoken = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'listen' }, { type: 'input_audio' as const, input_audio: { data: 'UklGRgAAAABXQVZF', format: 'wav' as const } }] }];
    await expect400(client(c).chat.completions.create({ model: 'gpt-4o-mini', messages: spoken }), 'messages[0].content[1]');
    assert.equal(chats().length, 0, 'no request reached the vendor');
    assert.equal(tg.balanceNano(c.accountId), START);
    await tg.assertBillingInvariants(c.accountId);
  });

  test('service_tier "flex" on gpt-5: charged at the flex prices', async () => {
    const c = await tg.customer(CREDIT);
    const reply = await client(c).chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'cheap and slow' }], service_tier: 'flex' });
    assert.equal(reply.service_tier, 'flex');
    assert.equal(chats().at(-1)!.body && (chats().at(-1)!.body as { service_tier?: string }).service_tier, 'flex');
    const { prompt_tokens: p, completion_tokens: o } = reply.usage!;
    assert.equal(START - tg.balanceNano(c.accountId), p * perToken(0.625) + o * perToken(5));
    await tg.assertBillingInvariants(c.accountId);
  });

  test('service_tier "priority", streamed: charged at the priority prices; "auto" costs the standard price', async () => {
    const c = await tg.customer(CREDIT);
    const stream = await client(c).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'fast please' }],
      service_tier: 'priority',
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    const afterPriority = tg.balanceNano(c.accountId);
    assert.equal(START - afterPriority, usage!.prompt_tokens * perToken(0.25) + usage!.completion_tokens * perToken(1));

    const auto = await client(c).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'any tier' }], service_tier: 'auto' });
    assert.equal(afterPriority - tg.balanceNano(c.accountId), auto.usage!.prompt_tokens * perToken(0.15) + auto.usage!.completion_tokens * perToken(0.6));
    await tg.assertBillingInvariants(c.accountId);
  });

  test('web_search_options on a search model: its tokens plus one search at the per-call price', async () => {
    const c = await tg.customer(CREDIT);
    const reply = await client(c).chat.completions.create({ model: 'gpt-4o-search-preview', messages: [{ role: 'user', content: 'news?' }], web_search_options: {} });
    assert.deepEqual((chats().at(-1)!.body as { web_search_options?: unknown }).web_search_options, {});
    const { prompt_tokens: p, completion_tokens: o } = reply.usage!;
    assert.equal(START - tg.balanceNano(c.accountId), p * perToken(2.5) + o * perToken(10) + nano(0.025));
    await tg.assertBillingInvariants(c.accountId);
  });

  test('audio output: the audio tokens the vendor reports are charged at the audio output price, not the text one', async () => {
    const c = await tg.customer(CREDIT);
    const reply = await client(c).chat.completions.create({
      model: 'gpt-4o-audio-preview',
      messages: [{ role: 'user', content: 'say it' }],
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
    });
    const usage = reply.usage!;
    const audio = usage.completion_tokens_details!.audio_tokens!;
    assert.ok(audio > 0, 'the simulator reported audio tokens');
    const text = usage.completion_tokens - audio;
    assert.equal(START - tg.balanceNano(c.accountId), usage.prompt_tokens * perToken(2.5) + text * perToken(10) + audio * perToken(80));
    await tg.assertBillingInvariants(c.accountId);
  });
});

test('audio in the prompt on a model with an audio input price: accepted and charged', async () => {
  const tg = await startTestGateway({ models: ['gpt-4o-audio-preview'] });
  try {
    const c = await tg.customer(CREDIT);
    const client = new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'gpt-4o-audio-preview',
      max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRgAAAABXQVZF', format: 'wav' } }] }],
    });
    assert.ok(reply.choices[0]?.message, 'answered');
    assert.ok(tg.balanceNano(c.accountId) < START, 'charged');
    await tg.assertBillingInvariants(c.accountId);
  } finally {
    await tg.close();
  }
});

describe('native messages: server tools, betas, service tier', () => {
  let tg: TestGateway;
  let upstream: FamilyUpstream;
  const sent = () => upstream.requests.filter((r) => r.method === 'POST');
  const client = (c: Customer, headers: Record<string, string> = {}) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0, defaultHeaders: headers });
  const webSearch = { type: 'web_search_20250305' as const, name: 'web_search' as const };

  before(async () => {
    tg = await startTestGateway({ simulator: false });
    upstream = await addFamilyProvider(tg, 'anthropic', { models: ['claude-sonnet-4-6', 'claude-plain'], modelMap: { 'claude-plain': 'claude-sonnet-4-6' } });
    // a model priced for its tokens only
    assert.equal((await tg.admin('PUT', '/admin/models/claude-plain', { pricing: { input_per_mtok: 3, output_per_mtok: 15 } })).status, 200);
  });
  after(async () => {
    await tg.close();
    await upstream.close();
  });

  test('unpriced: a web search tool, a paid service tier, the long-context beta, an unknown beta: 400 naming each, nothing forwarded or charged', async () => {
    const c = await tg.customer(CREDIT);
    upstream.reset();
    const base = { model: 'claude-plain', max_tokens: 64, messages: [{ role: 'user' as const, content: 'search' }] };
    await expect400(client(c).messages.create({ ...base, tools: [webSearch] }), 'tools[0].type');
    await expect400(client(c).messages.create({ ...base, stream: true, tools: [{ name: 'f', input_schema: { type: 'object' } }, webSearch] }), 'tools[1].type');
    await expect400(client(c).messages.create({ ...base, service_tier: 'priority' as 'auto' }), 'service_tier');
    await expect400(client(c, { 'anthropic-beta': 'context-1m-2025-08-07' }).messages.create(base), 'anthropic-beta');
    await expect400(client(c, { 'anthropic-beta': 'fast-mode-2026-02-01' }).messages.create({ ...base, model: 'claude-sonnet-4-6' }), 'anthropic-beta');
    assert.equal(sent().length, 0, 'no request reached the vendor');
    assert.equal(tg.balanceNano(c.accountId), START);
    await tg.assertBillingInvariants(c.accountId);
  });

  test('web search priced: the vendor is sent the reserved max_uses; charged the tokens plus each search the usage reports', async () => {
    const c = await tg.customer(CREDIT);
    const message = await client(c).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, tools: [webSearch], messages: [{ role: 'user', content: 'search the web' }] });
    const tool = (sent().at(-1)!.body as { tools: Array<{ max_uses?: number }> }).tools[0]!;
    assert.equal(tool.max_uses, 5, 'the searches reserved for are the most the vendor may run');
    const searches = message.usage.server_tool_use?.web_search_requests ?? 0;
    assert.equal(searches, 1);
    assert.equal(START - tg.balanceNano(c.accountId), message.usage.input_tokens * perToken(3) + message.usage.output_tokens * perToken(15) + searches * nano(0.01));
    await tg.assertBillingInvariants(c.accountId);
  });

  test('web search, streamed: the searches in message_delta are charged', async () => {
    const c = await tg.customer(CREDIT);
    const final = await client(c).messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 64, tools: [{ ...webSearch, max_uses: 2 }], messages: [{ role: 'user', content: 'stream a search' }] }).finalMessage();
    assert.equal(final.usage.server_tool_use?.web_search_requests, 1);
    assert.equal(START - tg.balanceNano(c.accountId), final.usage.input_tokens * perToken(3) + final.usage.output_tokens * perToken(15) + nano(0.01));
    await tg.assertBillingInvariants(c.accountId);
  });

  test('the hold covers the searches: a balance below max_uses searches is refused before anything is sent', async () => {
    const c = await tg.customer(0.05);
    upstream.reset();
    await assert.rejects(
      client(c).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 16, tools: [{ ...webSearch, max_uses: 10 }], messages: [{ role: 'user', content: 'ten searches' }] }),
      (e: { status?: number }) => e.status === 402,
    );
    assert.equal(sent().length, 0);
    assert.equal(tg.balanceNano(c.accountId), nano(0.05));
  });

  test('the long-context beta on a model priced for it: forwarded; a prompt past 200K tokens pays the long-context prices', async () => {
    const c = await tg.customer(CREDIT);
    upstream.enqueue({ kind: 'usage', promptTokens: 250_000 });
    const message = await client(c, { 'anthropic-beta': 'context-1m-2025-08-07' }).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'a long read' }] });
    assert.equal(sent().at(-1)!.headers['anthropic-beta'], 'context-1m-2025-08-07');
    assert.equal(message.usage.input_tokens, 250_000);
    assert.equal(START - tg.balanceNano(c.accountId), 250_000 * perToken(6) + message.usage.output_tokens * perToken(22.5));
    await tg.assertBillingInvariants(c.accountId);
  });
});

describe('image edits: the quality asked for is the quality metered', () => {
  let mg: MediaGateway;
  before(async () => {
    mg = await startMediaGateway();
  });
  after(() => mg.closeAll());
  const SOURCE = makePng(256, 256, 7);

  test('quality "high" (multipart, official client) is forwarded and charged at the high price; a quality with no price is refused', async () => {
    const c = await mg.customer(CREDIT);
    const client = mg.client(c);
    await client.images.edit({ model: 'image-b-1', image: await toFile(SOURCE, 'room.png', { type: 'image/png' }), prompt: 'brighter', quality: 'high' });
    const edit = mg.sim!.requests.findLast((r) => r.path === '/v1/images/edits')!.body as Record<string, unknown>;
    assert.equal(edit.quality, 'high');
    assert.equal(START - mg.balanceNano(c.accountId), nano(0.167));

    mg.sim!.reset();
    await expect400(client.images.edit({ model: 'image-b-1', image: await toFile(SOURCE, 'room.png', { type: 'image/png' }), prompt: 'x', quality: 'hd' as 'high' }), 'quality');
    assert.equal(mg.sim!.requests.filter((r) => r.path === '/v1/images/edits').length, 0);
    assert.equal(START - mg.balanceNano(c.accountId), nano(0.167));
    await mg.assertBillingInvariants(c.accountId);
  });
});
