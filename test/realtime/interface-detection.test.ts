// The gateway tells a client's interface generation from its frames as well as from the handshake
// (issue 18, contract "Realtime"): the spec's beta `session.update` (`session.modalities`, no
// `session.type`) is understood without any `OpenAI-Beta` header, current-interface frames are
// understood behind a beta header, and each upstream is spoken to in its own form.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { detectGeneration } from '../../src/realtime/translate/detect.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';
import { GPT_REALTIME, noSessions, priceOf, rawSession, realtimeUrl, textTurn, type RawSession } from '../helpers/realtime.ts';

describe('generation of a client frame', () => {
  test('session.update: session.type says current, its absence (or beta-only fields) says beta', () => {
    assert.equal(detectGeneration({ type: 'session.update', session: { modalities: ['text'] } }), 'beta');
    assert.equal(detectGeneration({ type: 'session.update', session: { instructions: 'x' } }), 'beta');
    assert.equal(detectGeneration({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }), 'ga');
    assert.equal(detectGeneration({ type: 'session.update', session: { type: 'realtime' } }), 'ga');
  });

  test('response.create and assistant items by their own fields; frames both generations share say nothing', () => {
    assert.equal(detectGeneration({ type: 'response.create', response: { modalities: ['text'] } }), 'beta');
    assert.equal(detectGeneration({ type: 'response.create', response: { max_response_output_tokens: 5 } }), 'beta');
    assert.equal(detectGeneration({ type: 'response.create', response: { output_modalities: ['audio'] } }), 'ga');
    assert.equal(detectGeneration({ type: 'response.create', response: { instructions: 'x' } }), undefined);
    assert.equal(detectGeneration({ type: 'response.create' }), undefined);
    assert.equal(detectGeneration({ type: 'conversation.item.create', item: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'a' }] } }), 'beta');
    assert.equal(detectGeneration({ type: 'conversation.item.create', item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] } }), 'ga');
    assert.equal(detectGeneration({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }] } }), undefined);
    assert.equal(detectGeneration({ type: 'input_audio_buffer.commit' }), undefined);
  });
});

describe('end to end', () => {
  let tg: TestGateway;
  let gaOnly: SimProvider;
  let betaOnly: SimProvider;
  before(async () => {
    tg = await startTestGateway({ simulator: false });
    gaOnly = await addSimProvider(tg, { name: 'ga-only', models: ['gpt-realtime'], simulator: { realtimeGenerations: ['ga'] } });
    betaOnly = await addSimProvider(tg, { name: 'beta-only', models: ['gpt-4o-mini-realtime-preview'], settings: { realtime_api: 'beta' }, simulator: { realtimeGenerations: ['beta'] } });
  });
  after(async () => {
    await tg.close();
    await gaOnly.close();
    await betaOnly.close();
  });

  async function finish(s: RawSession, accountId: string): Promise<void> {
    s.ws.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(accountId);
  }

  test('the spec’s frames with no beta header, against an upstream of the current interface', async () => {
    const customer = await tg.customer(5);
    // exactly what the spec shows: Authorization header, then session.update with session.modalities
    const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
    await s.log.next('session.created');
    s.send({ type: 'session.update', session: { modalities: ['text'], instructions: 'Short answers.' } });
    const updated = await s.log.next('session.updated');
    const upstream = gaOnly.sim.realtime.connections.at(-1)!;
    assert.deepEqual(upstream.received.find((e) => e.type === 'session.update')!.session, { type: 'realtime', output_modalities: ['text'], instructions: 'Short answers.' });
    assert.deepEqual(updated.session.modalities, ['text'], 'the client hears back in its own (beta) form');
    const done = await textTurn(s, 'Detect me');
    assert.equal(done.response.status, 'completed');
    assert.ok(s.log.ofType('response.text.delta').length > 0, 'deltas under their beta names');
    assert.equal(s.log.ofType('response.output_text.delta').length, 0);
    assert.equal(s.log.ofType('error').length, 0, 'the upstream accepted everything the gateway sent');
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    await finish(s, customer.accountId);
  });

  test('current-interface frames behind a beta header, against an upstream of the beta interface', async () => {
    const customer = await tg.customer(5);
    const s = rawSession(realtimeUrl(tg, 'gpt-4o-mini-realtime-preview'), { headers: { authorization: `Bearer ${customer.key}`, 'openai-beta': 'realtime=v1' } });
    await s.log.next('session.created');
    s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
    const updated = await s.log.next('session.updated');
    const upstream = betaOnly.sim.realtime.connections.at(-1)!;
    assert.deepEqual(upstream.received.find((e) => e.type === 'session.update')!.session, { modalities: ['text'], turn_detection: null });
    assert.deepEqual(updated.session.output_modalities, ['text'], 'the client hears back in its own (current) form');
    assert.equal(updated.session.type, 'realtime');
    const done = await textTurn(s, 'Detect me too');
    assert.equal(done.response.status, 'completed');
    assert.ok(s.log.ofType('response.output_text.delta').length > 0, 'deltas under their current names');
    assert.equal(s.log.ofType('error').length, 0);
    await finish(s, customer.accountId);
  });

  test('the spec’s frames against an upstream of the beta interface pass as they are', async () => {
    const customer = await tg.customer(5);
    const s = rawSession(realtimeUrl(tg, 'gpt-4o-mini-realtime-preview'), { headers: { authorization: `Bearer ${customer.key}` } });
    await s.log.next('session.created');
    s.send({ type: 'session.update', session: { modalities: ['text'], instructions: 'Short answers.' } });
    const updated = await s.log.next('session.updated');
    const upstream = betaOnly.sim.realtime.connections.at(-1)!;
    assert.deepEqual(upstream.received.find((e) => e.type === 'session.update')!.session, { modalities: ['text'], instructions: 'Short answers.' });
    assert.deepEqual(updated.session.modalities, ['text']);
    const done = await textTurn(s, 'Beta to beta');
    assert.equal(done.response.status, 'completed');
    assert.ok(s.log.ofType('response.text.delta').length > 0);
    assert.equal(s.log.ofType('error').length, 0);
    await finish(s, customer.accountId);
  });
});
