// Malformed realtime client frames (issue 17, point 1): text that is not JSON, a frame nested
// 100,000 levels deep, fields of the wrong type on the events the gateway reads. Each is answered
// with an `error` event naming the problem; the session stays open and usable, the process alive,
// and the money exact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { noSessions, rawSession, realtimeUrl, REALTIME_MODELS, textTurn, type RawSession } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

async function open(customer: Customer): Promise<RawSession> {
  const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.log.next('session.created');
  return s;
}

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('malformed client frames get an error event; the session goes on', () => {
  for (const [label, frame, param] of [
    ['text that is not JSON', '{"type": "response.create", oops', null],
    ['JSON that is not an event object', '[1,2,3]', null],
    ['a response.create nested 100,000 levels deep', `{"type":"response.create","response":{"metadata":${deep(100_000)}}}`, null],
    ['a session.update nested 100,000 levels deep', `{"type":"session.update","session":{"tools":${deep(100_000)}}}`, null],
    ['conversation.item.create with an item that is a number', '{"type":"conversation.item.create","item":5}', 'item'],
    ['response.create with a response that is a string', '{"type":"response.create","response":"now"}', 'response'],
    ['session.update with a session that is an array', '{"type":"session.update","session":[1]}', 'session'],
    ['input_audio_buffer.append with audio that is not a string', '{"type":"input_audio_buffer.append","audio":{"b64":"AAAA"}}', 'audio'],
    ['an event_id that is not a string', '{"type":"response.create","event_id":{"x":1}}', 'event_id'],
  ] as const) {
    test(label, async () => {
      const customer = await tg.customer(5);
      const s = await open(customer);
      const upstream = tg.sim!.realtime.connections.at(-1)!;
      s.ws.send(frame);
      const error = await s.log.next('error');
      assert.match(error.event_id, /^event_gw_/, 'the gateway answers, not the upstream');
      assert.equal(error.error.type, 'invalid_request_error', JSON.stringify(error));
      if (param) assert.equal(error.error.param, param, JSON.stringify(error));
      // the session still works, and nothing of the broken frame reached the upstream
      const done = await textTurn(s, 'still there?');
      assert.equal(done.response.status, 'completed');
      assert.ok(!upstream.received.some((e: { type?: string; response?: unknown; item?: unknown }) => e.item === 5 || e.response === 'now'), 'the broken frame was not forwarded');
      assert.equal((await fetch(`${tg.origin}/healthz`)).status, 200);
      s.ws.close(1000);
      await noSessions(tg);
      await tg.assertBillingInvariants(customer.accountId);
    });
  }
});
