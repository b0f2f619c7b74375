// Google's official client (@google/genai 3) against the Google dialect: generateContent,
// generateContentStream, a function-call round trip and embedContent, for a model of each family
// (served through the IR), on both API versions the client speaks (`/v1beta`, `/v1`); billing
// exact from `usageMetadata`; errors in Google's envelope on both prefixes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FunctionCallingConfigMode, GoogleGenAI, type GenerateContentResponseUsageMetadata } from '@google/genai';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, FAMILIES, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
const upstreams: FamilyUpstream[] = [];
const CREDIT = 5;
const START = CREDIT * 1e9;
const EMBEDDING: Record<string, string | undefined> = { openai: 'text-embedding-3-small', anthropic: undefined, gemini: 'gemini-embedding-001' };
const WEATHER = { name: 'get_weather', description: 'The weather in a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

before(async () => {
  tg = await startTestGateway({ simulator: false });
  for (const family of FAMILIES) {
    const embedding = EMBEDDING[family];
    upstreams.push(await addFamilyProvider(tg, family, { models: [CHAT_MODEL[family], ...(embedding ? [embedding] : [])] }));
  }
});
after(async () => {
  await tg.close();
  for (const upstream of upstreams) await upstream.close();
});

const client = (c: Customer, apiVersion: string) => new GoogleGenAI({ apiKey: c.key, httpOptions: { baseUrl: tg.origin, apiVersion } });
const usageOf = (u: GenerateContentResponseUsageMetadata | undefined) => ({
  prompt: u?.promptTokenCount ?? 0,
  completion: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
  cached: u?.cachedContentTokenCount ?? 0,
});

for (const apiVersion of ['v1beta', 'v1']) {
  for (const family of FAMILIES) {
    const model = CHAT_MODEL[family];
    const endpoint = (verb: string) => `/${apiVersion}/models/{model}:${verb}`;
    describe(`@google/genai (${apiVersion}) → ${family} (${model})`, () => {
      test('generateContent', async () => {
        const c = await tg.customer(CREDIT);
        const response = await client(c, apiVersion).models.generateContent({ model, contents: 'Hello from Google’s client', config: { systemInstruction: 'Be brief.', temperature: 0.5, maxOutputTokens: 200 } });
        assert.match(response.text ?? '', /Echo: Hello from Google’s client/);
        assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
        assert.equal(response.modelVersion, model);
        assert.ok(response.responseId);
        assert.ok((response.usageMetadata?.totalTokenCount ?? 0) > 0);
        await assertChargedExactly(tg, c.accountId, START, model, usageOf(response.usageMetadata), endpoint('generateContent'));
      });

      test('generateContentStream (?alt=sse)', async () => {
        const c = await tg.customer(CREDIT);
        const stream = await client(c, apiVersion).models.generateContentStream({ model, contents: 'Stream from Google’s client' });
        let text = '';
        let chunks = 0;
        let last;
        for await (const chunk of stream) {
          chunks++;
          text += chunk.text ?? '';
          last = chunk;
        }
        assert.ok(chunks > 2, `${chunks} chunks`);
        assert.match(text, /^Echo: Stream from Google’s client/);
        assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
        await assertChargedExactly(tg, c.accountId, START, model, usageOf(last?.usageMetadata), endpoint('streamGenerateContent'));
      });

      test('a function call round trip (thought signatures kept across turns)', async () => {
        const c = await tg.customer(CREDIT);
        const ai = client(c, apiVersion);
        const config = { tools: [{ functionDeclarations: [WEATHER] }], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
        const question = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
        const first = await ai.models.generateContent({ model, contents: [question], config });
        const call = first.functionCalls?.[0];
        assert.equal(call?.name, 'get_weather');
        assert.equal(typeof call?.args?.city, 'string');
        const second = await ai.models.generateContent({
          model,
          contents: [question, first.candidates![0]!.content!, { role: 'user', parts: [{ functionResponse: { id: call!.id, name: call!.name!, response: { output: 'sunny' } } }] }],
          config,
        });
        assert.match(second.text ?? '', /Tool result: .*sunny/);
        await tg.assertBillingInvariants(c.accountId);
      });

      const embeddingModel = EMBEDDING[family];
      if (embeddingModel) {
        test(`embedContent (${embeddingModel})`, async () => {
          const c = await tg.customer(CREDIT);
          const single = await client(c, apiVersion).models.embedContent({ model: embeddingModel, contents: 'embed me' });
          assert.equal(single.embeddings?.length, 1);
          assert.ok((single.embeddings![0]!.values?.length ?? 0) > 100);
          const batch = await client(c, apiVersion).models.embedContent({ model: embeddingModel, contents: ['one', 'two', 'three'], config: { outputDimensionality: 256 } });
          assert.deepEqual(batch.embeddings?.map((e) => e.values?.length), [256, 256, 256]);
          await tg.assertBillingInvariants(c.accountId);
        });
      }
    });
  }

  describe(`errors in Google’s envelope (${apiVersion})`, () => {
    const post = (path: string, headers: Record<string, string>, body: unknown) => fetch(`${tg.origin}/${apiVersion}/models/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    test('a wrong key: 401 UNAUTHENTICATED, and the client raises it', async () => {
      const res = await post(`${CHAT_MODEL.gemini}:generateContent`, { 'x-goog-api-key': 'sk-wrong' }, { contents: [{ parts: [{ text: 'x' }] }] });
      assert.equal(res.status, 401);
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      assert.equal(body.error.code, 401);
      assert.equal(body.error.status, 'UNAUTHENTICATED');
      await assert.rejects(new GoogleGenAI({ apiKey: 'sk-wrong', httpOptions: { baseUrl: tg.origin, apiVersion } }).models.generateContent({ model: CHAT_MODEL.openai, contents: 'x' }), /401/);
    });

    test('a bad field: 400 INVALID_ARGUMENT naming it', async () => {
      const c = await tg.customer(CREDIT);
      const res = await post(`${CHAT_MODEL.openai}:generateContent`, { 'x-goog-api-key': c.key }, { contents: [{ role: 'robot', parts: [{ text: 'x' }] }] });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      assert.match(body.error.message, /contents\[0\]\.role/);
      const missing = await post(`${CHAT_MODEL.openai}:generateContent?key=${c.key}`, {}, { generationConfig: {} });
      assert.equal(missing.status, 400);
      assert.equal(((await missing.json()) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
    });

    test('models.list and models.get in Google’s shape; a Bearer key on /v1/models still gets OpenAI’s list', async () => {
      const c = await tg.customer(CREDIT);
      const names: string[] = [];
      for await (const model of await client(c, apiVersion).models.list({ config: { pageSize: 2 } })) names.push(model.name ?? '');
      assert.deepEqual(names, [...Object.values(CHAT_MODEL), 'gemini-embedding-001', 'text-embedding-3-small'].sort().map((id) => `models/${id}`));
      const one = await client(c, apiVersion).models.get({ model: CHAT_MODEL.gemini });
      assert.equal(one.name, `models/${CHAT_MODEL.gemini}`);
      assert.ok(one.supportedActions?.includes('generateContent') ?? true);
      const openai = (await (await fetch(`${tg.origin}/v1/models`, { headers: { authorization: `Bearer ${c.key}` } })).json()) as { object: string };
      assert.equal(openai.object, 'list');
      const missing = await fetch(`${tg.origin}/${apiVersion}/models/no-such-model?key=${c.key}`);
      assert.equal(missing.status, 404);
      assert.equal(((await missing.json()) as { error: { status: string } }).error.status, 'NOT_FOUND');
      const wrongKey = await fetch(`${tg.origin}/${apiVersion}/models`, { headers: { 'x-goog-api-key': 'sk-wrong' } });
      assert.equal(wrongKey.status, 401);
      assert.equal(((await wrongKey.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
      const openaiMissing = await fetch(`${tg.origin}/v1/models/no-such-model`, { headers: { authorization: `Bearer ${c.key}` } });
      assert.equal(((await openaiMissing.json()) as { error: { type: string } }).error.type, 'not_found', 'a Bearer key keeps the OpenAI envelope');
    });

    test('countTokens: counted locally, free', async () => {
      const c = await tg.customer(CREDIT);
      const counted = await client(c, apiVersion).models.countTokens({ model: CHAT_MODEL.anthropic, contents: 'How many tokens is this?' });
      assert.ok((counted.totalTokens ?? 0) > 0);
      assert.equal(tg.balanceNano(c.accountId), START);
    });
  });
}

describe('translation details', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  for (const family of ['openai', 'anthropic'] as const) {
    test(`${family} (through the IR): an image part, a response schema in Google's types, and the settings the IR cannot carry named in a warning`, async () => {
      const c = await tg.customer(CREDIT);
      upstreams.forEach((upstream) => upstream.reset());
      const res = await fetch(`${tg.origin}/v1beta/models/${CHAT_MODEL[family]}:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key },
        body: JSON.stringify({
          contents: [{ role: 'user', parts: [{ text: 'Describe this' }, { inlineData: { mimeType: 'image/png', data: PNG } }] }],
          generationConfig: { topK: 5, responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { colour: { type: 'STRING' } }, required: ['colour'] } },
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.match(res.headers.get('x-modelgate-warning') ?? '', /topK dropped/);
      assert.match(res.headers.get('x-modelgate-warning') ?? '', /safetySettings dropped/);
      assert.ok(Number(res.headers.get('x-modelgate-cost')) > 0);
      const body = (await res.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
      assert.match(body.candidates[0]!.content.parts[0]!.text, /Describe this/);
      const sent = JSON.stringify(upstreams.find((upstream) => upstream.family === family)!.requests.at(-1)!.body);
      assert.match(sent, /"colour":\{"type":"string"\}/, 'the schema reaches the vendor as JSON Schema');
      assert.ok(sent.includes(PNG), 'the image reaches the vendor');
      await tg.assertBillingInvariants(c.accountId);
    });
  }
});

describe('the Gemini family: the request relayed as it came (fast path)', () => {
  test('safetySettings, topK and the schema in Google’s types reach the upstream untouched; no warning; exact billing', async () => {
    const c = await tg.customer(CREDIT);
    const gemini = upstreams.find((upstream) => upstream.family === 'gemini')!;
    gemini.reset();
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Relay me' }] }],
      generationConfig: { topK: 5, maxOutputTokens: 300, responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { colour: { type: 'STRING' } } } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const res = await fetch(`${tg.origin}/v1/models/${CHAT_MODEL.gemini}:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('x-modelgate-warning'), null);
    assert.deepEqual(gemini.requests.at(-1)!.body, body);
    const answer = (await res.json()) as { usageMetadata: GenerateContentResponseUsageMetadata; modelVersion: string };
    assert.equal(answer.modelVersion, CHAT_MODEL.gemini);
    await assertChargedExactly(tg, c.accountId, START, CHAT_MODEL.gemini, usageOf(answer.usageMetadata), '/v1/models/{model}:generateContent');
  });

  test('what the IR cannot carry (Google’s own tools) reaches a Gemini provider; any other family refuses it with a 400 naming the field, uncharged', async () => {
    const c = await tg.customer(CREDIT);
    const ai = client(c, 'v1beta');
    const config = { tools: [{ googleSearch: {} }] };
    const relayed = await ai.models.generateContent({ model: CHAT_MODEL.gemini, contents: 'Search the web', config });
    assert.match(relayed.text ?? '', /Echo: Search the web/);
    const sent = upstreams.find((upstream) => upstream.family === 'gemini')!.requests.at(-1)!.body as { tools: unknown };
    assert.deepEqual(sent.tools, [{ googleSearch: {} }]);
    const other = await tg.customer(CREDIT);
    const res = await fetch(`${tg.origin}/v1beta/models/${CHAT_MODEL.openai}:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': other.key }, body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }], ...config }) });
    assert.equal(res.status, 400);
    const error = ((await res.json()) as { error: { status: string; message: string } }).error;
    assert.equal(error.status, 'INVALID_ARGUMENT');
    assert.match(error.message, /googleSearch/);
    assert.equal(tg.balanceNano(other.accountId), START);
    await tg.assertBillingInvariants(other.accountId);
  });

  test('a stream is relayed event by event, with the gateway’s output cap when the client set none', async () => {
    const c = await tg.customer(CREDIT);
    const gemini = upstreams.find((upstream) => upstream.family === 'gemini')!;
    gemini.reset();
    let last;
    let text = '';
    for await (const chunk of await client(c, 'v1beta').models.generateContentStream({ model: CHAT_MODEL.gemini, contents: 'Relay a stream' })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    assert.match(text, /^Echo: Relay a stream/);
    const sent = gemini.requests.at(-1)!;
    assert.match(sent.path, /:streamGenerateContent\?alt=sse$/);
    assert.equal(typeof (sent.body as { generationConfig: { maxOutputTokens: unknown } }).generationConfig.maxOutputTokens, 'number');
    await assertChargedExactly(tg, c.accountId, START, CHAT_MODEL.gemini, usageOf(last?.usageMetadata), '/v1beta/models/{model}:streamGenerateContent');
  });
});

describe('upstream failures and usage details, per family', () => {
  const sse = (c: Customer, model: string) =>
    fetch(`${tg.origin}/v1beta/models/${model}:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'fail me' }] }] }) });

  for (const family of FAMILIES) {
    const upstream = () => upstreams.find((u) => u.family === family)!;
    const model = CHAT_MODEL[family];

    test(`${family}: a stream that fails mid-way ends with an error event in Google's envelope`, async () => {
      const c = await tg.customer(CREDIT);
      upstream().enqueue({ kind: 'stream-error', afterChunks: 2 });
      const res = await sse(c, model);
      // a failure before anything was written is a plain 502; after, the stream's last event
      const text = await res.text();
      const last = res.status === 200 ? (JSON.parse(text.split(/\r?\n\r?\n/).filter(Boolean).at(-1)!.replace(/^data: /, '')) as { error?: { code: number; status: string } }) : (JSON.parse(text) as { error?: { code: number; status: string } });
      assert.ok(res.status === 200 || res.status === 502, String(res.status));
      assert.equal(last.error?.code, 502);
      assert.equal(last.error?.status, 'UNAVAILABLE');
      assert.equal(tg.balanceNano(c.accountId), START, 'a failed stream is not charged');
      await tg.assertBillingInvariants(c.accountId);
    });

    test(`${family}: an upstream 429 is Google's RESOURCE_EXHAUSTED`, async () => {
      const c = await tg.customer(CREDIT);
      upstream().enqueue({ kind: 'status', status: 429 });
      const res = await fetch(`${tg.origin}/v1/models/${model}:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key }, body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }) });
      assert.equal(res.status, 429);
      assert.equal(((await res.json()) as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
      assert.equal(tg.balanceNano(c.accountId), START);
    });

    test(`${family}: cached prompt tokens as cachedContentTokenCount, billed exactly`, async () => {
      const c = await tg.customer(CREDIT);
      upstream().enqueue({ kind: 'usage', cachedTokens: 4 });
      const response = await client(c, 'v1beta').models.generateContent({ model, contents: 'a prompt long enough to have cached parts' });
      assert.equal(response.usageMetadata?.cachedContentTokenCount, 4);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(response.usageMetadata), '/v1beta/models/{model}:generateContent');
    });
  }
});

describe('the JSON-array stream (no alt)', () => {
  test('a stream without ?alt=sse is one JSON array of responses', async () => {
    const c = await tg.customer(CREDIT);
    const res = await fetch(`${tg.origin}/v1beta/models/${CHAT_MODEL.openai}:streamGenerateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'array please' }] }] }) });
    assert.equal(res.status, 200);
    const chunks = JSON.parse(await res.text()) as Array<{ candidates: Array<{ content: { parts: Array<{ text?: string }> }; finishReason?: string }>; usageMetadata?: { promptTokenCount: number } }>;
    assert.ok(chunks.length > 2);
    assert.match(chunks.map((chunk) => chunk.candidates[0]!.content.parts.map((p) => p.text ?? '').join('')).join(''), /^Echo: array please/);
    assert.equal(chunks.at(-1)!.candidates[0]!.finishReason, 'STOP');
    assert.ok(chunks.at(-1)!.usageMetadata!.promptTokenCount > 0);
    await tg.assertBillingInvariants(c.accountId);
  });
});
