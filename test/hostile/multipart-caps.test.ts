// Multipart uploads (issue 17, point 4), from the finding: "multipart uploads (20 files × 25 MiB,
// no total cap) are written to disk before the balance and rate checks". A form is capped as a
// whole (MODELGATE_MAX_UPLOAD_TOTAL_BYTES) and refused with 413 naming the rule, leaving nothing in
// MODELGATE_UPLOAD_DIR; a key that may not spend is refused before a byte is spooled.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import { startMediaGateway, type MediaGateway } from '../helpers/media.ts';

const uploadDir = join(mkdtempSync(join(tmpdir(), 'modelgate-caps-')), 'uploads');
let mg: MediaGateway;

before(async () => {
  mg = await startMediaGateway({
    env: { MODELGATE_UPLOAD_DIR: uploadDir, MODELGATE_MAX_UPLOAD_BYTES: String(200 * 1024), MODELGATE_MAX_UPLOAD_TOTAL_BYTES: String(300 * 1024) },
  });
});
after(async () => {
  await mg.closeAll();
  rmSync(dirname(uploadDir), { recursive: true, force: true });
});

const WAV = makeAudio('wav', 3.2); // 153 644 bytes: under the per-file limit, two of them over the total
const transcriptions = () => mg.sim!.requests.filter((r) => r.path === '/v1/audio/transcriptions').length;

async function upload(key: string, files: number): Promise<{ status: number; error: { code?: string; type?: string; message: string; param?: string } }> {
  const form = new FormData();
  form.set('model', 'whisper-1');
  for (let i = 0; i < files; i++) form.append(i === 0 ? 'file' : `file${i}`, new Blob([new Uint8Array(WAV)], { type: 'audio/wav' }), `part${i}.wav`);
  const res = await fetch(`${mg.baseURL}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: res.status, error: ((await res.json()) as { error: { code?: string; type?: string; message: string } }).error };
}

test('a key whose account has $0 is refused (402) before anything is written: the upload directory is never even created', async () => {
  const broke = await mg.customer(0);
  const sent = transcriptions();
  const answer = await upload(broke.key, 1);
  assert.equal(answer.status, 402);
  assert.equal(answer.error.type, 'insufficient_quota');
  assert.equal(existsSync(uploadDir), false, 'no upload was spooled');
  assert.equal(transcriptions(), sent);
});

test('files under the per-file limit but over the total together: 413 naming the rule, spooled parts deleted, nothing sent or charged; one alone is served', async () => {
  const customer = await mg.customer(5);
  const start = mg.balanceNano(customer.accountId);
  const sent = transcriptions();
  const answer = await upload(customer.key, 3);
  assert.equal(answer.status, 413);
  assert.equal(answer.error.code, 'upload_too_large');
  assert.equal(answer.error.param, 'file');
  assert.match(answer.error.message, /MODELGATE_MAX_UPLOAD_TOTAL_BYTES/);
  assert.match(answer.error.message, new RegExp(String(300 * 1024)));
  assert.deepEqual(readdirSync(uploadDir), [], 'the spooled files are deleted');
  assert.equal(transcriptions(), sent);
  assert.equal(mg.balanceNano(customer.accountId), start);
  await mg.assertBillingInvariants(customer.accountId);

  // one of those files alone is within both limits: served, and its spooled copy deleted afterwards
  const form = new FormData();
  form.set('model', 'whisper-1');
  form.set('file', new Blob([new Uint8Array(WAV)], { type: 'audio/wav' }), 'speech.wav');
  const res = await fetch(`${mg.baseURL}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${customer.key}` }, body: form });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(((await res.json()) as { text: string }).text, /Simulated transcript/);
  // the handler deletes its spooled file once the answer is sent: wait for that
  for (let waited = 0; readdirSync(uploadDir).length > 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(readdirSync(uploadDir), []);
});

test('a form with more files than allowed: 413 saying how many are', async () => {
  const customer = await mg.customer(5);
  const form = new FormData();
  form.set('model', 'whisper-1');
  for (let i = 0; i < 21; i++) form.append('file', new Blob(['x']), `tiny${i}.wav`);
  const res = await fetch(`${mg.baseURL}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${customer.key}` }, body: form });
  assert.equal(res.status, 413);
  const error = ((await res.json()) as { error: { code: string; message: string } }).error;
  assert.equal(error.code, 'too_many_parts');
  assert.match(error.message, /at most 20 files/);
  assert.deepEqual(readdirSync(uploadDir), []);
});
