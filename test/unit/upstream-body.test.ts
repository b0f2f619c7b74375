import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../../src/core/errors.ts';
import { UpstreamBody } from '../../src/pipeline/upstream-body.ts';

/** The part of undici's DispatchController the body uses, recording what it was told. */
function fakeController() {
  const state = { paused: false, aborted: false, reason: null as Error | null, pauses: 0, resumes: 0 };
  const controller = {
    get paused() {
      return state.paused;
    },
    get aborted() {
      return state.aborted;
    },
    get reason() {
      return state.reason;
    },
    pause() {
      state.paused = true;
      state.pauses++;
    },
    resume() {
      state.paused = false;
      state.resumes++;
    },
    abort(reason: Error) {
      state.aborted = true;
      state.reason = reason;
    },
  } as unknown as Dispatcher.DispatchController;
  return { controller, state };
}

const bytes = (text: string) => Buffer.from(text);

test('a reader gets chunks as they come; what arrived between two reads comes as one chunk', async () => {
  const { controller } = fakeController();
  const body = new UpstreamBody(controller);
  const iterator = body[Symbol.asyncIterator]();
  const first = iterator.next();
  body.push(bytes('a'));
  assert.equal(Buffer.from((await first).value!).toString(), 'a');
  body.push(bytes('b'));
  body.push(bytes('c'));
  assert.equal(Buffer.from((await iterator.next()).value!).toString(), 'bc');
  body.end();
  assert.equal((await iterator.next()).done, true);
});

test('a slow reader pauses the upstream past the high-water mark and resumes it when it reads', async () => {
  const { controller, state } = fakeController();
  const body = new UpstreamBody(controller);
  for (let i = 0; i < 100; i++) body.push(new Uint8Array(1024));
  assert.equal(state.paused, true);
  const iterator = body[Symbol.asyncIterator]();
  const { value } = await iterator.next();
  assert.equal(value!.byteLength, 100 * 1024);
  assert.equal(state.paused, false);
});

test('readAll gathers the whole body and refuses one larger than its limit (and aborts the upstream)', async () => {
  const { controller } = fakeController();
  const body = new UpstreamBody(controller);
  body.push(bytes('{"a":'));
  const whole = body.readAll(1024);
  body.push(bytes('1}'));
  body.end();
  assert.equal(Buffer.from(await whole).toString(), '{"a":1}');

  const big = fakeController();
  const tooLarge = new UpstreamBody(big.controller);
  const read = tooLarge.readAll(4);
  tooLarge.push(bytes('12345'));
  await assert.rejects(read, (error: unknown) => error instanceof GatewayError && error.code === 'upstream_too_large');
  assert.equal(big.state.aborted, true);
});

test('an upstream failure reaches a waiting reader; a discarded body aborts its request, a finished one does not', async () => {
  const { controller } = fakeController();
  const body = new UpstreamBody(controller);
  const pending = body[Symbol.asyncIterator]().next();
  body.fail(new Error('socket hang up'));
  await assert.rejects(pending, /socket hang up/);

  const discarded = fakeController();
  const left = new UpstreamBody(discarded.controller);
  left.push(bytes('partial'));
  left.destroy();
  assert.equal(discarded.state.aborted, true);

  const finished = fakeController();
  const complete = new UpstreamBody(finished.controller);
  complete.push(bytes('all'));
  complete.end();
  for await (const chunk of complete) assert.equal(Buffer.from(chunk).toString(), 'all');
  complete.destroy();
  assert.equal(finished.state.aborted, false);
});
