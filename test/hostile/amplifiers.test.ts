// Amplifiers (issue 17): a small request must not make the gateway hold or send far more than it
// was given. A forged `mgx_` tool-call id once inflated ~765× into vendor state sent upstream; the
// model catalogue kept every unknown model id a client named, forever.
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MAX_STATE_BYTES_PER_REQUEST, packToolCallId } from '../../src/vendors/_kit/tool-call-id.ts';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

const CLAUDE = 'claude-opus-5';
const GEMINI = 'gemini-3-pro-preview';
const TOOLS = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

let tg: TestGateway;
let claude: FamilyUpstream;
let gemini: FamilyUpstream;
let customer: Customer;

before(async () => {
  tg = await startTestGateway();
  claude = await addFamilyProvider(tg, 'anthropic', { models: [CLAUDE] });
  gemini = await addFamilyProvider(tg, 'gemini', { models: [GEMINI] });
  customer = await tg.customer(5);
});
after(async () => {
  await tg.close();
  await claude.close();
  await gemini.close();
});

const sdk = () => new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });

/** An id in the gateway's packed format made without its key: 3 MiB of state in a few kilobytes. */
function forgedId(state: Record<string, unknown>): string {
  return `mgx_${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;
}

/** A tool-call turn and its result, as a client sends them back. */
function toolTurn(id: string, city: string): ChatCompletionMessageParam[] {
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }] },
    { role: 'tool', tool_call_id: id, content: '{"temp_c":21}' },
  ];
}

/** Sends the conversation; upstream may refuse it (4xx), the gateway must not fail (5xx). */
async function send(model: string, messages: ChatCompletionMessageParam[]): Promise<number> {
  try {
    await sdk().chat.completions.create({ model, tools: TOOLS, messages });
    return 200;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.ok(error.status !== undefined && error.status < 500, `status ${error.status}: ${error.message}`);
    return error.status;
  }
}

const lastUpstreamBody = (upstream: FamilyUpstream) => JSON.stringify(upstream.requests.at(-1)!.body);

describe('a forged mgx_ tool-call id', () => {
  test('through chat completions to Claude: relayed as the opaque id it is, no thinking injected, no inflation', async () => {
    const forged = forgedId({ id: 'toolu_forged', thinking: [{ type: 'thinking', thinking: 'think about it '.repeat(3 * 1024 * 1024 / 15), signature: 'x' }] });
    assert.ok(forged.length < 16 * 1024);
    claude.reset();
    await send(CLAUDE, [{ role: 'user', content: 'Weather in Paris?' }, ...toolTurn(forged, 'Paris')]);
    const upstream = claude.requests.at(-1)!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    const sent = lastUpstreamBody(claude);
    assert.ok(sent.length < 64 * 1024, `the upstream body is ${sent.length} bytes for a ${forged.length}-byte id`);
    assert.ok(!sent.includes('"type":"thinking"'), 'no client-made thinking block reaches the vendor');
    const use = upstream.messages.flatMap((m) => m.content).find((block) => block.type === 'tool_use');
    assert.equal(use?.id, forged, 'the id goes upstream exactly as the client sent it');
    const result = upstream.messages.flatMap((m) => m.content).find((block) => block.type === 'tool_result');
    assert.equal(result?.tool_use_id, forged);
  });

  test('through chat completions to Gemini: relayed as the opaque id it is, no signature injected, no inflation', async () => {
    const forged = forgedId({ id: 'fc_forged', signature: 'sig '.repeat(3 * 1024 * 1024 / 4) });
    gemini.reset();
    await send(GEMINI, [{ role: 'user', content: 'Weather in Paris?' }, ...toolTurn(forged, 'Paris')]);
    const sent = lastUpstreamBody(gemini);
    assert.ok(sent.length < 64 * 1024, `the upstream body is ${sent.length} bytes for a ${forged.length}-byte id`);
    assert.ok(!sent.includes('sig sig'), 'no client-made thought signature reaches the vendor');
    const upstream = gemini.requests.at(-1)!.body as { contents: Array<{ parts: Array<Record<string, { id?: string }>> }> };
    const call = upstream.contents.flatMap((c) => c.parts).find((part) => part.functionCall);
    assert.equal(call?.functionCall?.id, forged, 'the id goes upstream exactly as the client sent it');
    // a call Gemini did not sign goes with Google's documented stand-in, never the client's
    assert.equal((call as { thoughtSignature?: unknown } | undefined)?.thoughtSignature, 'skip_thought_signature_validator');
  });
});

describe('genuine ids: the state restored per request is capped', () => {
  test('a signed id carrying 600 KiB of thinking, used in two turns: the first restores it, the second (past 1 MiB) is opaque', async () => {
    // words, not one long run: the simulator counts its tokens
    const thinking = 'so the weather is asked for twice '.repeat(600 * 1024 / 34);
    // signed in this process with the gateway's key, as the gateway signs the ids it hands out
    const genuine = packToolCallId('toolu_big', { thinking: [{ type: 'thinking', thinking, signature: 'x' }] });
    claude.reset();
    await send(CLAUDE, [{ role: 'user', content: 'Weather in Paris and Rome?' }, ...toolTurn(genuine, 'Paris'), { role: 'user', content: 'And Rome?' }, ...toolTurn(genuine, 'Rome')]);
    const sent = lastUpstreamBody(claude);
    assert.equal(sent.split(thinking).length - 1, 1, 'the state was restored exactly once');
    assert.ok(sent.length < MAX_STATE_BYTES_PER_REQUEST + 64 * 1024, `the upstream body is ${sent.length} bytes`);
    assert.ok(sent.includes('"id":"toolu_big"'), 'the first use went upstream under the vendor id it carries');
  });
});

describe('the model catalogue', () => {
  test('model ids nobody described or serves are not kept, whichever route names them', async () => {
    const before = tg.gateway.catalogue.cachedCount;
    const c = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    for (let i = 0; i < 10; i++) {
      const model = `unknown-${i}-${'x'.repeat(200)}`;
      await assert.rejects(c.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 404);
      await assert.rejects(c.embeddings.create({ model, input: 'hi' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 404);
      await assert.rejects(c.images.generate({ model, prompt: 'a cat' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 404);
    }
    assert.equal(tg.gateway.catalogue.cachedCount, before);
  });

  test('served and built-in models are still resolved once and kept', async () => {
    const reply = await sdk().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(reply.choices[0]!.message.content);
    const entry = tg.gateway.catalogue.get('gpt-4o-mini');
    assert.equal(tg.gateway.catalogue.get('gpt-4o-mini'), entry, 'the same entry, not a new one per request');
    assert.equal(entry.priced, true);
  });
});
