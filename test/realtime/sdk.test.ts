// The official openai client's realtime WebSocket classes hold sessions through the gateway as
// they would with the vendor: GA and beta, text and audio turns, key in a header or a subprotocol.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { GPT_REALTIME, noSessions, pcm16, priceOf, rawSession, realtimeUrl, REALTIME_MODELS, sdkSession, textTurn } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

describe('official client, GA interface', () => {
  test('text session: session.update, a text turn, billed exactly, one usage row with the session id', async () => {
    const customer = await tg.customer(5);
    const s = sdkSession(tg, customer.key, 'gpt-realtime');
    await s.opened;
    const created = await s.log.next('session.created');
    assert.equal(created.session.type, 'realtime');
    assert.equal(created.session.model, 'gpt-realtime');

    s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Answer briefly.' } });
    const updated = await s.log.next('session.updated');
    assert.deepEqual(updated.session.output_modalities, ['text']);

    const done = await textTurn(s, 'What is a gateway?');
    assert.equal(done.response.status, 'completed');
    const deltas = s.log.ofType('response.output_text.delta').map((e) => e.delta).join('');
    assert.match(deltas, /^Echo: What is a gateway\?/);
    assert.equal((await s.log.next('response.output_text.done')).text, deltas);
    assert.ok(s.log.events.some((e) => e.type === 'conversation.item.added'), 'GA item events reach the GA client');

    const cost = priceOf(done.response.usage, GPT_REALTIME);
    assert.ok(cost > 0);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), cost, 'balance drops by the priced usage of the response');

    s.rt.close();
    assert.equal((await s.closed).code, 1000);
    assert.deepEqual(s.errors, []);
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].endpoint, '/v1/realtime');
    assert.equal(rows[0].model, 'gpt-realtime');
    assert.match(rows[0].session_id, /^rtsess_/);
    assert.equal(rows[0].prompt_tokens, done.response.usage.input_tokens);
    assert.equal(rows[0].completion_tokens, done.response.usage.output_tokens);
    assert.equal(Math.round(rows[0].cost_usd * 1e9), cost);
  });

  test('audio turn: append + commit, audio deltas with a transcript, audio tokens priced at the audio rates', async () => {
    const customer = await tg.customer(5);
    const s = sdkSession(tg, customer.key, 'gpt-realtime');
    await s.opened;
    s.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: null } } } });
    await s.log.next('session.updated');
    for (let i = 0; i < 10; i++) s.send({ type: 'input_audio_buffer.append', audio: pcm16(100) });
    s.send({ type: 'input_audio_buffer.commit' });
    const committed = await s.log.next('input_audio_buffer.committed');
    assert.ok(committed.item_id);
    s.send({ type: 'response.create' });
    const done = await s.log.next('response.done');
    assert.equal(done.response.status, 'completed');
    const audio = s.log.ofType('response.output_audio.delta');
    assert.ok(audio.length > 0, 'audio deltas reach the client');
    assert.ok(Buffer.from(audio[0]!.delta, 'base64').length > 0);
    assert.match(s.log.ofType('response.output_audio_transcript.delta').map((e) => e.delta).join(''), /^I heard 10 tokens of audio\./);
    const usage = done.response.usage;
    assert.equal(usage.input_token_details.audio_tokens, 10, 'one second of PCM16 = 10 audio tokens');
    assert.ok(usage.output_token_details.audio_tokens > 0);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(usage, GPT_REALTIME));
    s.rt.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('the upstream sees the provider key and the upstream socket, never the client key', async () => {
    const customer = await tg.customer(5);
    const s = sdkSession(tg, customer.key, 'gpt-realtime');
    await s.opened;
    await s.log.next('session.created');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    assert.equal(upstream.headers.authorization, 'Bearer sim-upstream-key');
    assert.ok(!JSON.stringify(upstream.headers).includes(customer.key), 'the client key never goes upstream');
    assert.equal(upstream.model, 'gpt-realtime');
    s.rt.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('frames the gateway does not take at face value', () => {
  test('a second "type" smuggled behind an audio append is read as the upstream reads it; the session keeps its model', async () => {
    const customer = await tg.customer(5);
    const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
    await s.log.next('session.created');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    s.ws.send('{"type":"input_audio_buffer.append","audio":"AAAA","type":"session.update","session":{"type":"realtime","model":"gpt-4o-realtime-preview"}}');
    const update = await upstream.nextEvent('session.update');
    assert.equal((update.session as { model: string }).model, 'gpt-realtime');
    s.ws.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('official client, beta interface (spec shape: session.modalities)', () => {
  test('a beta client on a GA upstream: translated both ways, billed the same', async () => {
    const customer = await tg.customer(5);
    const s = sdkSession(tg, customer.key, 'gpt-realtime', 'beta');
    await s.opened;
    const created = await s.log.next('session.created');
    assert.deepEqual(created.session.modalities, ['text', 'audio'], 'the beta client sees a beta session');
    assert.equal(created.session.type, undefined);

    s.send({ type: 'session.update', session: { modalities: ['text'], instructions: 'Be brief.', temperature: 0.7, max_response_output_tokens: 200 } });
    const updated = await s.log.next('session.updated');
    assert.deepEqual(updated.session.modalities, ['text']);
    assert.equal(updated.session.max_response_output_tokens, 200);

    const upstream = tg.sim!.realtime.connections.at(-1)!;
    assert.equal(upstream.generation, 'ga', 'the gateway spoke GA upstream');
    assert.equal(upstream.headers['openai-beta'], undefined);
    const sentUpdate = upstream.received.find((e) => e.type === 'session.update')!;
    assert.deepEqual(sentUpdate.session, { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.', max_output_tokens: 200 });

    const done = await textTurn(s, 'Hello from the beta shape');
    assert.ok(s.log.ofType('response.text.delta').length > 0, 'beta event names reach the beta client');
    assert.equal(s.log.ofType('response.output_text.delta').length, 0);
    assert.equal(s.log.ofType('conversation.item.done').length, 0, 'GA-only events are not sent to a beta client');
    assert.ok(s.log.ofType('conversation.item.created').length >= 2);
    assert.deepEqual(done.response.modalities, ['text']);
    assert.equal(done.response.output[0].content[0].type, 'text');
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    s.rt.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('browser-style authentication', () => {
  test('the key as the openai-insecure-api-key subprotocol; the gateway echoes "realtime", never the key', async () => {
    const customer = await tg.customer(5);
    const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { protocols: ['realtime', `openai-insecure-api-key.${customer.key}`, 'openai-beta.realtime-v1'] });
    await s.opened;
    assert.equal(s.ws.protocol, 'realtime');
    const created = await s.log.next('session.created');
    assert.deepEqual(created.session.modalities, ['text', 'audio'], 'the beta subprotocol selects the beta interface');
    const done = await textTurn(s, 'hi from a browser');
    assert.equal(done.response.status, 'completed');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    assert.ok(!String(upstream.headers['sec-websocket-protocol'] ?? '').includes(customer.key));
    s.ws.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
