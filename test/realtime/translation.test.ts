// Translation between the beta and GA realtime interfaces (protocols.md §2.9 mapping table): the
// pure shapes both ways, and end to end against simulators that accept only one generation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTranslator } from '../../src/realtime/translate/events.ts';
import { sessionToBeta, sessionToGa } from '../../src/realtime/translate/shapes.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';
import { GPT_REALTIME, noSessions, pcm16, priceOf, rawSession, realtimeUrl, sdkSession, textTurn } from '../helpers/realtime.ts';

describe('shapes', () => {
  const beta = {
    modalities: ['text', 'audio'],
    instructions: 'Be kind.',
    voice: 'verse',
    input_audio_format: 'pcm16',
    output_audio_format: 'g711_ulaw',
    input_audio_transcription: { model: 'whisper-1' },
    turn_detection: null,
    tools: [{ type: 'function', name: 'f', parameters: {} }],
    tool_choice: 'auto',
    max_response_output_tokens: 300,
  };
  const ga = {
    type: 'realtime',
    output_modalities: ['audio'],
    instructions: 'Be kind.',
    tools: [{ type: 'function', name: 'f', parameters: {} }],
    tool_choice: 'auto',
    max_output_tokens: 300,
    audio: {
      input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'whisper-1' }, turn_detection: null },
      output: { format: { type: 'audio/pcmu' }, voice: 'verse' },
    },
  };

  test('a beta session becomes the GA one, and back', () => {
    assert.deepEqual(sessionToGa(beta), ga);
    assert.deepEqual(sessionToBeta(ga), beta);
  });

  test('beta-only and GA-only fields are dropped where the other side would reject them', () => {
    assert.deepEqual(sessionToGa({ temperature: 0.6, modalities: ['text'] }), { type: 'realtime', output_modalities: ['text'] });
    assert.deepEqual(sessionToBeta({ type: 'realtime', include: ['item.input_audio_transcription.logprobs'], truncation: 'auto', output_modalities: ['text'] }), { modalities: ['text'] });
  });

  test('server events for a beta client: renamed, reshaped, GA-only ones dropped; delta renames without parsing', () => {
    const t = createTranslator('beta', 'ga')!;
    assert.deepEqual(t.toClient({ type: 'conversation.item.done', item: {} }), []);
    assert.deepEqual(t.toClient({ type: 'response.output_text.delta', delta: 'hi' }), [{ type: 'response.text.delta', delta: 'hi' }]);
    const [added] = t.toClient({ type: 'conversation.item.added', item: { type: 'message', role: 'assistant', content: [{ type: 'output_audio', transcript: 'x' }] } });
    assert.deepEqual(added, { type: 'conversation.item.created', item: { type: 'message', role: 'assistant', content: [{ type: 'audio', transcript: 'x' }] } });
    assert.equal(t.renameDelta('response.output_audio.delta'), 'response.audio.delta');
    assert.deepEqual(t.toUpstream({ type: 'response.create', response: { modalities: ['text'], voice: 'ash', max_response_output_tokens: 5 } }), {
      type: 'response.create',
      response: { output_modalities: ['text'], max_output_tokens: 5, audio: { output: { voice: 'ash' } } },
    });
    assert.deepEqual(t.toUpstream({ type: 'conversation.item.create', item: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'a' }] } }), {
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
    });
  });

  test('server events for a GA client from a beta upstream: an item still being written gets its done later', () => {
    const t = createTranslator('ga', 'beta')!;
    const finished = t.toClient({ type: 'conversation.item.created', event_id: 'e1', item: { id: 'u1', status: 'completed', role: 'user', content: [] } });
    assert.deepEqual(finished.map((e) => e.type), ['conversation.item.added', 'conversation.item.done']);
    const running = t.toClient({ type: 'conversation.item.created', event_id: 'e2', item: { id: 'a1', status: 'in_progress', role: 'assistant', content: [] } });
    assert.deepEqual(running.map((e) => e.type), ['conversation.item.added']);
    const done = t.toClient({ type: 'response.output_item.done', event_id: 'e3', item: { id: 'a1', status: 'completed', role: 'assistant', content: [{ type: 'text', text: 'ok' }] } });
    assert.deepEqual(done.map((e) => e.type), ['conversation.item.done', 'response.output_item.done']);
    assert.deepEqual(done[1]!.item, { id: 'a1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] });
    assert.equal(createTranslator('ga', 'ga'), null, 'same generation: no translation at all');
  });
});

describe('end to end', () => {
  let tg: TestGateway;
  let gaOnly: SimProvider;
  let betaOnly: SimProvider;
  before(async () => {
    tg = await startTestGateway({ simulator: false });
    // the vendor as reported since GA: beta handshakes are closed with 4000
    gaOnly = await addSimProvider(tg, { name: 'ga-only', models: ['gpt-realtime'], simulator: { realtimeGenerations: ['ga'] } });
    // an OpenAI-compatible server that only knows the beta interface
    betaOnly = await addSimProvider(tg, { name: 'beta-only', models: ['gpt-4o-mini-realtime-preview'], settings: { realtime_api: 'beta' }, simulator: { realtimeGenerations: ['beta'] } });
  });
  after(async () => {
    await tg.close();
    await gaOnly.close();
    await betaOnly.close();
  });

  test('the spec’s beta session.update (session.modalities) against a GA-only upstream', async () => {
    const customer = await tg.customer(5);
    const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}`, 'openai-beta': 'realtime=v1' } });
    await s.log.next('session.created');
    s.send({ type: 'session.update', session: { modalities: ['text'], instructions: 'Short answers.' } });
    const updated = await s.log.next('session.updated');
    assert.deepEqual(updated.session.modalities, ['text']);
    const done = await textTurn(s, 'Translate me');
    assert.equal(done.response.status, 'completed');
    assert.ok(s.log.ofType('response.text.delta').length > 0);
    assert.equal(s.log.ofType('error').length, 0, 'the GA-only upstream accepted everything the gateway sent');
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    s.ws.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('the official GA client against a beta-only upstream (provider setting realtime_api: beta): text and audio', async () => {
    const customer = await tg.customer(5);
    const s = sdkSession(tg, customer.key, 'gpt-4o-mini-realtime-preview');
    await s.opened;
    const created = await s.log.next('session.created');
    assert.equal(created.session.type, 'realtime');
    assert.deepEqual(created.session.audio.output.format, { type: 'audio/pcm', rate: 24000 });
    const upstream = betaOnly.sim.realtime.connections.at(-1)!;
    assert.equal(upstream.generation, 'beta');
    assert.equal(upstream.headers['openai-beta'], 'realtime=v1');

    s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
    const updated = await s.log.next('session.updated');
    assert.deepEqual(updated.session.output_modalities, ['text']);
    assert.deepEqual(upstream.received.find((e) => e.type === 'session.update')!.session, { modalities: ['text'], turn_detection: null });

    const text = await textTurn(s, 'Hello beta server');
    assert.ok(s.log.ofType('response.output_text.delta').length > 0);
    assert.ok(s.log.ofType('conversation.item.done').length >= 2, 'GA item completion events are synthesised');

    for (let i = 0; i < 3; i++) s.send({ type: 'input_audio_buffer.append', audio: pcm16(100) });
    s.send({ type: 'input_audio_buffer.commit' });
    s.send({ type: 'response.create', response: { output_modalities: ['audio'] } });
    const audio = await s.log.next('response.done', (e) => e.response.id !== text.response.id);
    assert.ok(s.log.ofType('response.output_audio.delta').length > 0);
    assert.ok(s.log.ofType('response.output_audio_transcript.delta').length > 0);
    assert.equal(audio.response.output[0].content[0].type, 'output_audio');
    assert.deepEqual(s.errors, []);

    const mini = { text: [600, 300, 2400] as [number, number, number], audio: [10000, 300, 20000] as [number, number, number] };
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(text.response.usage, mini) + priceOf(audio.response.usage, mini));
    s.rt.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('model mapping: the upstream gets the provider’s model id, the client keeps seeing its own', async () => {
    const mapped = await addSimProvider(tg, { name: 'mapped', models: ['my-voice-model'], modelMap: { 'my-voice-model': 'gpt-realtime-2025-08-28' } });
    try {
      const customer = await tg.customer(5);
      const s = rawSession(realtimeUrl(tg, 'my-voice-model'), { headers: { authorization: `Bearer ${customer.key}` } });
      const created = await s.log.next('session.created');
      assert.equal(created.session.model, 'my-voice-model');
      const upstream = mapped.sim.realtime.connections.at(-1)!;
      assert.equal(upstream.model, 'gpt-realtime-2025-08-28');
      s.send({ type: 'session.update', session: { type: 'realtime', model: 'my-voice-model', instructions: 'x' } });
      const updated = await s.log.next('session.updated');
      assert.equal(updated.session.model, 'my-voice-model');
      assert.deepEqual(upstream.received.find((e) => e.type === 'session.update')!.session, { type: 'realtime', model: 'gpt-realtime-2025-08-28', instructions: 'x' });
      s.ws.close();
      await s.closed;
      await noSessions(tg);
      await tg.assertBillingInvariants(customer.accountId);
    } finally {
      await mapped.close();
    }
  });
});
