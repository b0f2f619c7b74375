// Every response.done is priced from its usage and settled once as its own ledger entry and usage
// row; the session's standing hold keeps concurrent sessions of one account from overspending;
// when the balance cannot cover the next response the session ends with insufficient_quota.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { expectRefusal, GPT_REALTIME, noSessions, pcm16, priceOf, rawSession, realtimeUrl, REALTIME_MODELS, textTurn, type RawSession } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

function open(customer: Customer, model = 'gpt-realtime'): RawSession {
  return rawSession(realtimeUrl(tg, model), { headers: { authorization: `Bearer ${customer.key}` } });
}

async function textOnly(s: RawSession): Promise<void> {
  await s.opened;
  s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
  await s.log.next('session.updated');
}

async function closeAndSettle(s: RawSession): Promise<void> {
  s.ws.close();
  await s.closed;
  await noSessions(tg);
}

describe('exact billing per response', () => {
  test('three responses in one session: three charges keyed by session and response id, three usage rows', async () => {
    const customer = await tg.customer(5);
    const s = open(customer);
    await textOnly(s);
    const first = await textTurn(s, 'First question.');
    const afterFirst = tg.balanceNano(customer.accountId);
    assert.equal(5e9 - afterFirst, priceOf(first.response.usage, GPT_REALTIME), 'charged as soon as the response is done');

    for (let i = 0; i < 5; i++) s.send({ type: 'input_audio_buffer.append', audio: pcm16(100) });
    s.send({ type: 'input_audio_buffer.commit' });
    s.send({ type: 'response.create', response: { output_modalities: ['audio'] } });
    const second = await s.log.next('response.done');
    assert.ok(second.response.usage.output_token_details.audio_tokens > 0);
    assert.ok(second.response.usage.input_tokens > first.response.usage.input_tokens, 'each response bills its whole context');

    const third = await textTurn(s, 'Third, with cache. [[sim:cached=20]]');
    assert.equal(third.response.usage.input_token_details.cached_tokens, 20);

    const expected = [first, second, third].map((done) => priceOf(done.response.usage, GPT_REALTIME));
    assert.equal(5e9 - tg.balanceNano(customer.accountId), expected[0]! + expected[1]! + expected[2]!);
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);

    const rows = (await usageRows(tg, customer.accountId)).reverse();
    assert.equal(rows.length, 3, 'one usage row per response');
    assert.equal(new Set(rows.map((r) => r.session_id)).size, 1, 'all rows carry the session id');
    assert.deepEqual(rows.map((r) => Math.round(r.cost_usd * 1e9)), expected);
    assert.deepEqual(rows.map((r) => r.cached_tokens), [0, 0, 20]);
    const entries = (await tg.gateway.repos.ledger.listByAccount(customer.accountId, 100)).filter((e) => e.kind === 'charge').reverse();
    assert.deepEqual(
      entries.map((e) => e.entry_key),
      [first, second, third].map((done) => `realtime:${rows[0].session_id}:${done.response.id}`),
    );
  });

  test('a response the upstream starts on its own (server VAD) is held for and billed', async () => {
    const customer = await tg.customer(5);
    const s = open(customer);
    await s.opened;
    await s.log.next('session.created');
    // default turn detection: speech, then silence ends the turn and the upstream answers
    for (let i = 0; i < 8; i++) s.send({ type: 'input_audio_buffer.append', audio: pcm16(100) });
    s.send({ type: 'input_audio_buffer.append', audio: pcm16(100, true) });
    await s.log.next('input_audio_buffer.speech_stopped');
    const done = await s.log.next('response.done');
    assert.equal(done.response.status, 'completed');
    assert.equal(done.response.usage.input_token_details.audio_tokens, 9);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal((await usageRows(tg, customer.accountId)).length, 1);
  });

  test('a cancelled response is billed for what it produced; a failed one for its reported usage', async () => {
    const customer = await tg.customer(5);
    const s = open(customer);
    await textOnly(s);
    s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Talk until stopped [[sim:hold]]' }] } });
    s.send({ type: 'response.create' });
    await s.log.next('response.output_text.delta');
    s.send({ type: 'response.cancel' });
    const cancelled = await s.log.next('response.done');
    assert.equal(cancelled.response.status, 'cancelled');
    assert.ok(cancelled.response.usage.output_tokens > 0);

    const failed = await textTurn(s, 'Break now [[sim:fail]]');
    assert.equal(failed.response.status, 'failed');
    const expected = priceOf(cancelled.response.usage, GPT_REALTIME) + priceOf(failed.response.usage, GPT_REALTIME);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), expected);
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
    const rows = (await usageRows(tg, customer.accountId)).reverse();
    assert.deepEqual(rows.map((r) => r.status), [499, 502]);
  });
});

describe('balance guard', () => {
  test('when the balance cannot cover the next response: response.done first, then an insufficient_quota error and close 1008', async () => {
    const customer = await tg.customer(1);
    const s = open(customer);
    await textOnly(s);
    // the account runs dry elsewhere (a correction) below what a text response may cost
    // (4096 text output tokens at $16/M ≈ $0.066); the response already covered still runs
    assert.equal((await tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: -0.95, note: 'spent elsewhere' })).status, 200);
    const done = await textTurn(s, 'The last answer I can afford.');
    assert.equal(done.response.status, 'completed');
    const error = await s.log.next('error');
    assert.equal(error.error.type, 'insufficient_quota');
    assert.equal(error.error.code, 'insufficient_quota');
    assert.ok(s.log.events.indexOf(done) < s.log.events.indexOf(error), 'the response completes before the error');
    const closed = await s.closed;
    assert.equal(closed.code, 1008);
    assert.equal(closed.reason, 'insufficient_quota');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    assert.equal((await upstream.closed).code, 1000, 'the upstream session is closed too');
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal(tg.balanceNano(customer.accountId), 0.05e9 - priceOf(done.response.usage, GPT_REALTIME));
  });

  test('a response.create the balance cannot cover is not forwarded; the running response is cancelled and billed', async () => {
    // $0.3 covers one reservation of ≈ $0.262 (4096 audio output tokens at $64/M), not two
    const customer = await tg.customer(0.3);
    const s = open(customer);
    await s.opened;
    s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Keep going [[sim:hold]]' }] } });
    s.send({ type: 'response.create' });
    await s.log.next('response.output_audio_transcript.delta');
    s.send({ type: 'response.create', event_id: 'evt_second' });
    const error = await s.log.next('error');
    assert.equal(error.error.type, 'insufficient_quota');
    assert.equal(error.error.event_id, 'evt_second');
    assert.equal((await s.closed).code, 1008);
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    await upstream.closed;
    await noSessions(tg);
    assert.equal(upstream.received.filter((e) => e.type === 'response.create').length, 1, 'the refused create never reached the upstream');
    assert.equal(upstream.received.filter((e) => e.type === 'response.cancel').length, 1, 'the running response was cancelled');
    await tg.assertBillingInvariants(customer.accountId);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1, 'the cancelled response was billed');
    assert.equal(rows[0].status, 499);
    assert.ok(rows[0].cost_usd > 0);
    assert.equal(0.3e9 - tg.balanceNano(customer.accountId), Math.round(rows[0].cost_usd * 1e9));
  });

  test('concurrent sessions of one account cannot overspend: the second handshake is refused while the first holds the balance', async () => {
    const customer = await tg.customer(0.4);
    const first = open(customer);
    await first.opened;
    const second = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
    assert.equal(second.status, 402);
    await closeAndSettle(first);
    const third = open(customer);
    await third.opened;
    await closeAndSettle(third);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal(tg.balanceNano(customer.accountId), 0.4e9, 'sessions without responses cost nothing');
  });

  test('a response.create the upstream refuses frees its hold', async () => {
    const customer = await tg.customer(5);
    const s = open(customer);
    await textOnly(s);
    s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hold on [[sim:hold]]' }] } });
    s.send({ type: 'response.create' });
    await s.log.next('response.output_text.delta');
    // the running response took the standing hold
    assert.equal(tg.gateway.ledger.openReservations, 1);
    s.send({ type: 'response.create', event_id: 'evt_dup' });
    const refused = await s.log.next('error');
    assert.equal(refused.error.code, 'conversation_already_has_active_response');
    assert.equal(refused.error.event_id, 'evt_dup');
    assert.equal(tg.gateway.ledger.openReservations, 2, 'the refused create’s hold became the standing hold, nothing more');
    s.send({ type: 'response.cancel' });
    await s.log.next('response.done');
    assert.equal(tg.gateway.ledger.openReservations, 1, 'only the standing hold is left');
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal((await usageRows(tg, customer.accountId)).length, 1);
  });
});
