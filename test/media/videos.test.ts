// Video jobs: submission holds seconds × per_second; the worker (driven by tick(), never by a
// clock) polls the upstream, charges the seconds actually made and serves the video under a
// one-hour link; failures and timeouts release the hold. Jobs are the key's account's alone,
// polling is idempotent, and a job survives a restart of the gateway (and a crashed owner).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseBuffer } from 'music-metadata';
import OpenAI from 'openai';
import { startGeminiMediaSimulator, type GeminiMediaSimulator } from '../../simulators/gemini/media-server.ts';
import { startOpenAISimulator, type OpenAISimulator } from '../../simulators/openai/server.ts';
import { bothDatabases } from '../helpers/databases.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { nano, startMediaGateway, type MediaGateway } from '../helpers/media.ts';
import { chargeCount } from '../helpers/upstreams.ts';

describe('video jobs', () => {
  let mg: MediaGateway;
  let customer: Customer;
  let client: OpenAI;
  before(async () => {
    mg = await startMediaGateway();
    customer = await mg.customer(20);
    client = mg.client(customer);
  });
  after(async () => mg.closeAll());

  test('videos.create → hold of 8 s × $0.10; the worker completes it, charges 8 s, the content is a real MP4 of 8 s', async () => {
    const start = mg.balanceNano(customer.accountId);
    const job = await client.videos.create({ model: 'sora-2', prompt: 'a paper boat on a river', seconds: '8', size: '1280x720' });
    assert.equal(job.object, 'video');
    assert.equal(job.status, 'queued');
    assert.equal(job.seconds, '8');
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), nano(0.8), 'the whole order is held');
    assert.equal(mg.balanceNano(customer.accountId), start, 'nothing is charged at submission');
    const again = await client.videos.retrieve(job.id);
    assert.equal(again.status, 'queued');
    assert.deepEqual(await client.videos.retrieve(job.id), again, 'polling changes nothing');

    await mg.gateway.videoWorker.tick();
    const done = await client.videos.retrieve(job.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.progress, 100);
    assert.ok(done.expires_at && Math.abs(done.expires_at - (Date.now() / 1000 + 3600)) < 60, 'content lives one hour');
    const content = await client.videos.downloadContent(job.id);
    assert.equal(content.headers.get('content-type'), 'video/mp4');
    const meta = await parseBuffer(new Uint8Array(await content.arrayBuffer()), { mimeType: 'video/mp4' }, { duration: true });
    assert.equal((meta.format.trackInfo[0] as { duration?: number }).duration, 8);
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), 0);
    assert.equal(start - mg.balanceNano(customer.accountId), nano(0.8));
    await mg.gateway.videoWorker.tick();
    assert.equal(start - mg.balanceNano(customer.accountId), nano(0.8), 'a finished job is never charged again');
    await mg.assertBillingInvariants(customer.accountId);
  });

  test('/v1/videos/generations on the long-running upstream: 6 s held at $0.40, measured from the file, served under a signed link', async () => {
    const start = mg.balanceNano(customer.accountId);
    const submitted = await mg.post('/v1/videos/generations', customer.key, { model: 'veo-3.1-generate-preview', prompt: 'waves [[sim:polls=2]]', duration: 6 });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.object, 'video.generation');
    assert.equal(submitted.body.status, 'queued');
    assert.equal(submitted.body.duration, 6);
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), nano(2.4));
    const upstream = mg.gemini.state.requests.at(-1)!;
    assert.equal(upstream.path, '/v1beta/models/veo-3.1-generate-preview:predictLongRunning');
    assert.deepEqual((upstream.body as { parameters: unknown }).parameters, { durationSeconds: 6, sampleCount: 1, aspectRatio: '16:9' });

    await mg.gateway.videoWorker.tick();
    const running = await fetch(`${mg.baseURL}/videos/generations/${submitted.body.id}`, { headers: { authorization: `Bearer ${customer.key}` } });
    const runningBody = (await running.json()) as Record<string, unknown>;
    assert.equal(runningBody.status, 'in_progress');
    assert.equal(runningBody.url, undefined);

    await mg.gateway.videoWorker.tick();
    const done = (await (await fetch(`${mg.baseURL}/videos/generations/${submitted.body.id}`, { headers: { authorization: `Bearer ${customer.key}` } })).json()) as Record<string, any>;
    assert.equal(done.status, 'completed');
    assert.match(done.url, /\/media\/vid_\w+\.mp4\?expires=\d+&sig=/);
    const file = await fetch(done.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
    assert.equal(mg.gemini.state.requests.filter((r) => r.path.includes(':download')).at(-1)?.headers['x-goog-api-key'], 'gemini-upstream-key');
    assert.equal(start - mg.balanceNano(customer.accountId), nano(2.4));
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), 0);
    await mg.assertBillingInvariants(customer.accountId);
  });

  test('a failed job releases its hold and costs nothing; so does one that runs past the deadline', async () => {
    const start = mg.balanceNano(customer.accountId);
    const charges = await chargeCount(mg, customer.accountId);
    const failing = await client.videos.create({ model: 'sora-2-pro', prompt: 'doomed [[sim:fail]]', seconds: '12' });
    const hanging = await client.videos.create({ model: 'sora-2', prompt: 'endless [[sim:hang]]', seconds: '4' });
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), nano(3.6) + nano(0.4));
    await mg.gateway.videoWorker.tick();
    const failed = await client.videos.retrieve(failing.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'video_generation_failed');
    assert.equal((await client.videos.retrieve(hanging.id)).status, 'in_progress');
    assert.equal(mg.gateway.ledger.reserved(customer.accountId), nano(0.4));
    // three hours later (past MODELGATE_JOB_TIMEOUT_MS, 2 h by default) the worker gives up
    await mg.gateway.videoWorker.tick(Date.now() + 3 * 3600 * 1000);
    const timedOut = await client.videos.retrieve(hanging.id);
    assert.equal(timedOut.status, 'failed');
    assert.equal(timedOut.error?.code, 'timeout');
    await assert.rejects(client.videos.downloadContent(hanging.id), OpenAI.NotFoundError);
    assert.equal(mg.balanceNano(customer.accountId), start);
    assert.equal(await chargeCount(mg, customer.accountId), charges);
    await mg.assertBillingInvariants(customer.accountId);
  });

  test('jobs belong to the key’s account: another account sees 404 everywhere; lists show only one’s own', async () => {
    const job = await client.videos.create({ model: 'sora-2', prompt: 'private', seconds: '4' });
    const stranger = mg.client(await mg.customer(1));
    await assert.rejects(stranger.videos.retrieve(job.id), OpenAI.NotFoundError);
    await assert.rejects(stranger.videos.downloadContent(job.id), OpenAI.NotFoundError);
    await assert.rejects(stranger.videos.delete(job.id), OpenAI.NotFoundError);
    const raw = await fetch(`${mg.baseURL}/videos/generations/${job.id}`, { headers: { authorization: `Bearer ${(await mg.customer(1)).key}` } });
    assert.equal(raw.status, 404);
    const mine = await client.videos.list({ limit: 100 });
    assert.ok(mine.data.some((v) => v.id === job.id));
    assert.equal((await stranger.videos.list()).data.length, 0);
    await assert.rejects(client.videos.delete(job.id), OpenAI.BadRequestError, 'a running job cannot be deleted');
    await mg.gateway.videoWorker.tick();
    const deleted = await client.videos.delete(job.id);
    assert.equal(deleted.deleted, true);
    await assert.rejects(client.videos.retrieve(job.id), OpenAI.NotFoundError);
  });

  test('rules: lengths and sizes per model; not enough balance for the hold is 402 before anything is submitted; an upstream refusal costs nothing', async () => {
    const bad = async (promise: Promise<unknown>, param: string) =>
      assert.rejects(promise, (error: unknown) => error instanceof OpenAI.BadRequestError && (error as { param?: string }).param === param);
    await bad(client.videos.create({ model: 'sora-2', prompt: 'x', seconds: '5' as '4' }), 'seconds');
    await bad(client.videos.create({ model: 'sora-2', prompt: 'x', size: '1024x1792' }), 'size');
    const veo = await mg.post('/v1/videos/generations', customer.key, { model: 'veo-3.1-generate-preview', prompt: 'x', duration: 5 });
    assert.equal(veo.status, 400);
    assert.equal(veo.body.error.param, 'duration');
    const missing = await mg.post('/v1/videos/generations', customer.key, { model: 'sora-2', duration: 4 });
    assert.equal(missing.body.error.param, 'prompt');

    const poor = await mg.customer(1);
    const submissions = mg.sim!.requests.filter((r) => r.path === '/v1/videos').length;
    await assert.rejects(mg.client(poor).videos.create({ model: 'sora-2-pro', prompt: 'expensive', seconds: '12' }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 402);
    assert.equal(mg.sim!.requests.filter((r) => r.path === '/v1/videos').length, submissions);

    mg.sim!.enqueue({ kind: 'status', status: 500 });
    const start = mg.balanceNano(poor.accountId);
    await assert.rejects(mg.client(poor).videos.create({ model: 'sora-2', prompt: 'fails upstream', seconds: '4' }), OpenAI.InternalServerError);
    assert.equal(mg.balanceNano(poor.accountId), start);
    assert.equal((await mg.client(poor).videos.list()).data.length, 0);
    await mg.assertBillingInvariants(poor.accountId);
  });
});

for (const database of bothDatabases('video')) describe(`video jobs across restarts (${database.name})`, () => {
  let dir: string;
  let sim: OpenAISimulator;
  let gemini: GeminiMediaSimulator;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'modelgate-video-restart-'));
    sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key' });
    gemini = await startGeminiMediaSimulator({ apiKey: 'gemini-upstream-key' });
  });
  after(async () => {
    await sim.close();
    await gemini.close();
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  const boot = (name: string) =>
    startTestGateway({
      databaseUrl: database.url,
      simulator: false,
      env: { MODELGATE_JOB_POLL_MS: '0', MODELGATE_MEDIA_DIR: join(dir, `media-${name}`), MODELGATE_JOB_LEASE_MS: '60000' },
    });

  test('a job submitted before a restart is finished by the restarted gateway: the hold comes back, the charge happens once', async () => {
    const first = await boot('a');
    await first.admin('POST', '/admin/providers', { name: 'sim', type: 'openai', base_url: sim.baseUrl, api_key: 'sim-upstream-key', models: ['sora-2'] });
    const customer = await first.customer(5);
    const client = new OpenAI({ apiKey: customer.key, baseURL: first.baseURL, maxRetries: 0 });
    const job = await client.videos.create({ model: 'sora-2', prompt: 'survives [[sim:polls=3]]', seconds: '4' });
    await first.gateway.videoWorker.tick();
    assert.equal((await client.videos.retrieve(job.id)).status, 'in_progress');
    await first.close();

    const second = await boot('b');
    try {
      const client2 = new OpenAI({ apiKey: customer.key, baseURL: second.baseURL, maxRetries: 0 });
      assert.equal((await client2.videos.retrieve(job.id)).status, 'in_progress');
      assert.equal(second.balanceNano(customer.accountId), nano(5));
      assert.equal(second.gateway.ledger.reserved(customer.accountId), 0, 'reservations live in memory: none after a restart…');
      await second.gateway.videoWorker.tick();
      assert.equal(second.gateway.ledger.reserved(customer.accountId), nano(0.4), '…until the worker takes the job over and restores its hold');
      assert.equal((await client2.videos.retrieve(job.id)).status, 'in_progress');
      await second.gateway.videoWorker.tick();
      const done = await client2.videos.retrieve(job.id);
      assert.equal(done.status, 'completed');
      assert.equal(second.balanceNano(customer.accountId), nano(5) - nano(0.4));
      assert.equal(await chargeCount(second, customer.accountId), 1);
      await second.assertBillingInvariants(customer.accountId);
    } finally {
      await second.close();
    }
  });

  test('an owner that died (no graceful stop) keeps its jobs until its lease runs out; then another instance finishes them, charging once', async () => {
    const owner = await boot('c');
    let other: TestGateway | undefined;
    try {
      await owner.admin('POST', '/admin/providers', { name: 'gem', type: 'gemini', base_url: gemini.baseUrl, api_key: 'gemini-upstream-key', models: ['veo-3.1-generate-preview'] });
      const customer = await owner.customer(5);
      const submitted = await fetch(`${owner.baseURL}/videos/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'veo-3.1-generate-preview', prompt: 'orphan', duration: 4 }),
      });
      const id = ((await submitted.json()) as { id: string }).id;
      other = await boot('d');
      await other.gateway.sync.now();
      await other.gateway.videoWorker.tick();
      const row = await other.gateway.repos.videoJobs.get(id);
      assert.equal(row?.status, 'queued', 'a live lease is respected');
      await other.gateway.videoWorker.tick(Date.now() + 61_000);
      const done = await other.gateway.repos.videoJobs.get(id);
      assert.equal(done?.status, 'completed');
      assert.equal(done?.cost_nano, nano(1.6));
      // the old owner comes back to find nothing left to do
      await owner.gateway.videoWorker.tick();
      await owner.gateway.sync.now();
      await other.gateway.sync.now();
      assert.equal(other.balanceNano(customer.accountId), nano(5) - nano(1.6));
      assert.equal(await chargeCount(other, customer.accountId), 1);
    } finally {
      await other?.close();
      await owner.close();
    }
  });
});
