// The realtime hold follows the conversation (issue 18): what the client adds to the context — a
// large item, out-of-band `response.input` — is covered before it can be billed, so a session
// never spends money its account does not have. What the balance cannot cover gets an
// `insufficient_quota` error event and never reaches the upstream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countTextTokens } from '../../src/core/tokens/token-counter.ts';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { GPT_REALTIME, noSessions, priceOf, rawSession, realtimeUrl, REALTIME_MODELS, textTurn, type RawSession, type RealtimeEvent } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

/** `bytes` of ordinary English-like text (~6 bytes a token) */
function bigText(bytes: number): string {
  const words = ['hello', 'world', 'the', 'quick', 'brown', 'fox', 'gateway', 'money'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const word = words[i % words.length]!;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ');
}

const userItem = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

async function textSession(customer: Customer): Promise<RawSession> {
  const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.opened;
  s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
  await s.log.next('session.updated');
  return s;
}

async function closeAndSettle(s: RawSession): Promise<void> {
  s.ws.close();
  await s.closed;
  await noSessions(tg);
}

/** the first of: an error answering `eventId`, or a response.created (without taking either from the log) */
function errorOrResponse(s: RawSession, eventId: string): Promise<RealtimeEvent> {
  return new Promise((resolve) => {
    const listener = (data: Buffer) => {
      const event = JSON.parse(data.toString()) as RealtimeEvent;
      if ((event.type === 'error' && event.error?.event_id === eventId) || event.type === 'response.created') {
        s.ws.off('message', listener);
        resolve(event);
      }
    };
    s.ws.on('message', listener);
  });
}

describe('the hold follows the conversation', () => {
  test('a 1.8 MB item the balance cannot cover is refused with insufficient_quota and never joins the upstream conversation', async () => {
    const customer = await tg.customer(0.3);
    const s = await textSession(customer);
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    // ~300,000 tokens: about $1.20 of input at $4/M on a $0.30 balance
    s.send({ type: 'conversation.item.create', event_id: 'evt_big', item: userItem(bigText(1_800_000)) });
    s.send({ type: 'response.create', event_id: 'evt_answer' });
    const done = await s.log.next('response.done');

    const refused = s.log.ofType('error').find((e) => e.error.event_id === 'evt_big');
    assert.ok(refused, 'the client hears why its item was refused');
    assert.equal(refused.error.type, 'insufficient_quota');
    assert.equal(refused.error.code, 'insufficient_quota');
    assert.equal(
      upstream.received.filter((e) => e.type === 'conversation.item.create').length,
      0,
      'the refused item never reached the upstream',
    );
    assert.equal(done.response.status, 'completed', 'the session goes on within its balance');
    assert.ok(done.response.usage.input_tokens < 1_000, `the answer was billed on a small context (${done.response.usage.input_tokens} tokens)`);
    assert.equal(tg.balanceNano(customer.accountId), 0.3e9 - priceOf(done.response.usage, GPT_REALTIME));
    assert.ok(tg.balanceNano(customer.accountId) >= 0);
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('an item the balance covers tops the standing hold up before it is forwarded; the response is billed exactly', async () => {
    const customer = await tg.customer(1.5);
    const s = await textSession(customer);
    const before = tg.gateway.ledger.reserved(customer.accountId);
    // ~50,000 tokens (bounded from above by its 300,000 bytes): more than the standing hold taken at the handshake covers beside a text answer
    const text = bigText(300_000);
    s.send({ type: 'conversation.item.create', item: userItem(text) });
    await s.log.next('conversation.item.done');
    const itemCost = countTextTokens(text) * GPT_REALTIME.text[0];
    const textAnswer = 4096 * GPT_REALTIME.text[2];
    const reserved = tg.gateway.ledger.reserved(customer.accountId);
    assert.ok(reserved > before && reserved >= textAnswer + itemCost, `the hold covers the item and a text answer: ${before} → ${reserved} (item ≈ ${itemCost})`);
    const done = await textTurn(s, 'And a short question.');
    assert.ok(done.response.usage.input_tokens > 50_000);
    assert.equal(1.5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('out-of-band response.input the balance cannot cover: an error event, nothing forwarded, nothing charged', async () => {
    const customer = await tg.customer(0.3);
    const s = await textSession(customer);
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    s.send({
      type: 'response.create',
      event_id: 'evt_oob',
      response: { conversation: 'none', output_modalities: ['text'], input: [userItem(bigText(1_800_000))] },
    });
    const answer = await errorOrResponse(s, 'evt_oob');
    assert.equal(answer.type, 'error', `the out-of-band response was refused (got ${answer.type})`);
    assert.equal(answer.error.code, 'insufficient_quota');
    assert.equal(upstream.received.filter((e) => e.type === 'response.create').length, 0, 'the refused response.create never reached the upstream');
    assert.equal(tg.balanceNano(customer.accountId), 0.3e9, 'nothing charged');

    // the session is still open, and an out-of-band response it can afford runs and is billed on its own input
    s.send({ type: 'response.create', event_id: 'evt_small', response: { conversation: 'none', output_modalities: ['text'], input: [userItem(bigText(6_000))] } });
    const done = await s.log.next('response.done');
    assert.equal(done.response.status, 'completed');
    assert.ok(done.response.usage.input_tokens > 900, 'the upstream billed the response its own input');
    assert.equal(0.3e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal((await usageRows(tg, customer.accountId)).length, 1);
  });

  test('a response.create asking for a dearer answer than the balance covers is refused; the session stays usable', async () => {
    const customer = await tg.customer(0.3);
    const s = await textSession(customer);
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    const first = await textTurn(s, 'A first, short question.');
    // after a text response the standing hold is a text answer's (4096 tokens at $16/M ≈ $0.066);
    // the account runs low elsewhere: an audio answer (4096 tokens at $64/M ≈ $0.26) no longer fits
    assert.equal((await tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: -0.15, note: 'spent elsewhere' })).status, 200);
    s.send({ type: 'conversation.item.create', item: userItem('Say it aloud.') });
    s.send({ type: 'response.create', event_id: 'evt_audio', response: { output_modalities: ['audio'] } });
    const answer = await errorOrResponse(s, 'evt_audio');
    assert.equal(answer.type, 'error', 'the audio answer is beyond the balance');
    assert.equal(answer.error.code, 'insufficient_quota');
    assert.equal(upstream.received.filter((e) => e.type === 'response.create').length, 1, 'only the first response.create reached the upstream');
    s.send({ type: 'response.create', event_id: 'evt_text' });
    const done = await s.log.next('response.done', (e) => e.response.id !== first.response.id);
    assert.equal(done.response.status, 'completed');
    assert.equal(0.15e9 - tg.balanceNano(customer.accountId), priceOf(first.response.usage, GPT_REALTIME) + priceOf(done.response.usage, GPT_REALTIME));
    await closeAndSettle(s);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
