// A slow reader on either side must not make the gateway buffer without bound: past
// MODELGATE_REALTIME_MAX_BUFFERED_BYTES towards one side, the other side is no longer read, so the
// sender's own socket fills up instead — and nothing is lost once the reader catches up.
//
// Each sender writes one frame per turn of the event loop: its own send buffer can only grow when
// the kernel buffers towards the gateway are full, i.e. when the gateway stopped reading. That is
// the event each test waits for. A gateway that kept reading would never make the sender stall
// (the test times out) or would have buffered far more than the bound (the assertion fails).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LiveSession } from '../../src/realtime/types.ts';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { GPT_REALTIME, noSessions, priceOf, rawSession, realtimeUrl, REALTIME_MODELS } from '../helpers/realtime.ts';

const CAP = 64 * 1024;
/** one audio frame of 64 KiB raw is ~88 KB of JSON; a read from a socket is at most 64 KiB more */
const FRAME = 90 * 1024;
const BOUND = CAP + 2 * FRAME + 64 * 1024;
/** far more than loopback socket buffers absorb (up to ~36 MB here): the sender must stall first */
const MAX_FRAMES = 1000;
const STALLED = 1024 * 1024;

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS], env: { MODELGATE_REALTIME_MAX_BUFFERED_BYTES: String(CAP) } });
});
after(async () => {
  await tg.close();
});

function sessionOf(): LiveSession {
  const [session] = tg.gateway.realtime.live;
  assert.ok(session);
  return session;
}

test('a client that stops reading: the gateway stops reading the upstream and holds at most the cap; nothing is lost', { timeout: 60_000 }, async () => {
  const customer = await tg.customer(5);
  const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.log.next('session.created');
  const upstream = tg.sim!.realtime.connections.at(-1)!;
  const session = sessionOf();
  s.ws.pause();
  s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Flood me [[sim:big-audio=${MAX_FRAMES}]]` }] } });
  s.send({ type: 'response.create' });

  // the upstream's own send buffer fills: the gateway no longer reads it
  await upstream.bufferedAtLeast(STALLED);
  assert.ok(session.stats.toClient.pauses >= 1);
  assert.ok(session.stats.toClient.peakBuffered <= BOUND, `gateway buffered ${session.stats.toClient.peakBuffered} bytes towards the client (bound ${BOUND})`);

  s.send({ type: 'response.cancel' });
  s.ws.resume();
  const done = await s.log.next('response.done');
  assert.equal(done.response.status, 'cancelled', 'the flood was still running: it had stalled');
  const audioBytes = s.log.ofType('response.output_audio.delta').reduce((sum, e) => sum + Buffer.from(e.delta, 'base64').length, 0);
  assert.ok(audioBytes > 0);
  assert.equal(Math.ceil(audioBytes / 2400), done.response.usage.output_token_details.audio_tokens, 'every audio byte the upstream sent reached the client');
  assert.ok(session.stats.toClient.peakBuffered <= BOUND, `peak ${session.stats.toClient.peakBuffered} over the whole response`);
  assert.equal(5e9 - tg.balanceNano(customer.accountId), priceOf(done.response.usage, GPT_REALTIME));

  s.ws.close();
  await s.closed;
  await noSessions(tg);
  await tg.assertBillingInvariants(customer.accountId);
});

test('an upstream that stops reading: the gateway stops reading the client and holds at most the cap; everything arrives in order', { timeout: 60_000 }, async () => {
  const customer = await tg.customer(5);
  const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.log.next('session.created');
  s.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: null } } } });
  await s.log.next('session.updated');
  const upstream = tg.sim!.realtime.connections.at(-1)!;
  const session = sessionOf();
  upstream.pauseReading();

  const chunk = Buffer.alloc(64 * 1024, 3).toString('base64');
  let sent = 0;
  const stalled = await new Promise<boolean>((resolve) => {
    const pump = () => {
      if (s.ws.bufferedAmount >= STALLED) return resolve(true);
      if (sent === MAX_FRAMES) return resolve(false);
      s.send({ type: 'input_audio_buffer.append', event_id: `append_${sent++}`, audio: chunk });
      setImmediate(pump);
    };
    pump();
  });
  assert.ok(stalled, `the client's own buffer never filled: the gateway read all ${sent} frames`);
  assert.ok(session.stats.toUpstream.pauses >= 1);
  assert.ok(session.stats.toUpstream.peakBuffered <= BOUND, `gateway buffered ${session.stats.toUpstream.peakBuffered} bytes towards the upstream (bound ${BOUND})`);

  s.send({ type: 'input_audio_buffer.commit' });
  upstream.resumeReading();
  await s.log.next('input_audio_buffer.committed');
  const appends = upstream.received.filter((e) => e.type === 'input_audio_buffer.append');
  assert.deepEqual(
    appends.map((e) => e.event_id),
    Array.from({ length: sent }, (_, i) => `append_${i}`),
    'every append arrived, in order',
  );
  assert.ok(session.stats.toUpstream.peakBuffered <= BOUND, `peak ${session.stats.toUpstream.peakBuffered} towards the upstream`);

  s.ws.close();
  await s.closed;
  await noSessions(tg);
  await tg.assertBillingInvariants(customer.accountId);
});
