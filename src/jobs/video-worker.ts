import type { Hold } from '../billing/ledger.ts';
import { releaseHeld, settleHeld, type HeldMoney } from '../billing/settle-held.ts';
import type { SharedHold } from '../billing/shared-holds.ts';
import { usageRow } from '../billing/usage-row.ts';
import { priceOf } from '../core/pricing.ts';
import type { VideoPoll } from '../core/ir/media.ts';
import { timeoutSignal } from '../core/timeout-signal.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { measureBytes } from '../media/audio-duration.ts';
import { authHeaders } from '../pipeline/auth-headers.ts';
import type { JobRef, UpstreamRequest, VideoCodec } from '../core/contracts/vendor-codec.ts';
import type { ProviderRuntime } from '../pipeline/router.ts';
import type { NewUsageRow, VideoJobRow } from '../store/schema.ts';
import type { VideoWorkerDeps } from './deps.ts';

export interface VideoWorkerOptions {
  /** this process's identity in job leases */
  instanceId: string;
  /** 0 = no timer: the owner calls tick() */
  pollIntervalMs: number;
  leaseMs: number;
  /** upstream wait per poll or download */
  requestTimeoutMs: number;
}

const MAX_VIDEO_BYTES = 1024 * 1024 * 1024;
const BATCH = 50;

/**
 * Drives video jobs to their end, off the request path. Jobs live in the database; a job is
 * worked on by the instance holding its lease (renewed on every tick), and taken over by any
 * instance once the lease runs out — so jobs survive restarts and crashes. The reservation
 * taken at submission is held here (restored from the job row after a restart) until the job
 * ends: completed → the seconds actually made are charged (once: the journal entry key is the
 * job's id); failed, refused or timed out → the hold is released and nothing is charged.
 * Across instances (REDIS_URL) the job's shared hold moves with it: registered under the job by
 * whichever instance works on it (in place of the request's, or of an instance that lost the
 * lease), and turned into the job's pending charge or released when it ends.
 */
export class VideoWorker {
  private readonly deps: VideoWorkerDeps;
  private readonly options: VideoWorkerOptions;
  private readonly holds = new Map<string, { hold: Hold; shared: SharedHold | undefined }>();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(deps: VideoWorkerDeps, options: VideoWorkerOptions) {
    this.deps = deps;
    this.options = options;
  }

  get instanceId(): string {
    return this.options.instanceId;
  }

  /** A job accepted by this instance: its reservations (this instance's and the shared one) are now the worker's to settle. */
  adopt(job: Pick<VideoJobRow, 'id' | 'account_id' | 'deadline_at'>, hold: Hold, shared: SharedHold | undefined): void {
    const taken = shared && this.deps.sharedHolds?.takeOver(job.account_id, job.id, hold.amount, job.deadline_at, shared);
    this.holds.set(job.id, { hold, shared: taken });
  }

  start(): void {
    if (this.options.pollIntervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.deps.log.error({ err: error }, 'video worker cycle failed'));
    }, this.options.pollIntervalMs);
    this.timer.unref();
  }

  /** One pass over every job this instance owns or may take over (after any pass in progress). */
  tick(now = Date.now()): Promise<void> {
    const next = this.chain.then(() => this.pass(now));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Stops polling and hands the leases back, so a restarted or other instance continues at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.chain;
    await this.deps.repos.videoJobs.releaseLeases(this.options.instanceId);
  }

  private async pass(now: number): Promise<void> {
    const jobs = await this.deps.repos.videoJobs.claimable(this.options.instanceId, now, BATCH);
    for (const job of jobs) {
      try {
        await this.work(job, now);
      } catch (error) {
        this.deps.log.warn({ err: error, job: job.id }, 'video job poll failed; retrying on the next pass');
      }
    }
    await this.deps.media.sweep(now);
  }

  private async work(job: VideoJobRow, now: number): Promise<void> {
    const repo = this.deps.repos.videoJobs;
    if (!(await repo.lease(job.id, this.options.instanceId, now, now + this.options.leaseMs))) return;
    const { hold, shared } = this.holdOf(job);
    if (now >= job.deadline_at) return this.fail(job, hold, shared, 'timeout', 'The video was not finished in time; nothing was charged.');
    const provider = this.deps.router.get(job.provider_id);
    const codec = provider?.adapter.operations.videos;
    if (!provider || !codec) return this.fail(job, hold, shared, 'provider_unavailable', 'The provider that accepted this job is gone; nothing was charged.');
    const ref: JobRef = { upstreamId: job.upstream_id, upstreamModel: job.upstream_model };

    const response = await this.send(provider, codec.poll.prepare(ref));
    const body = await response.body.readAll(1024 * 1024);
    if (response.status === 404) return this.fail(job, hold, shared, 'upstream_job_lost', 'The upstream no longer knows this job; nothing was charged.');
    if (response.status >= 400) throw new Error(`upstream answered a poll with HTTP ${response.status}`);
    const poll = codec.poll.decode(ref, body);
    switch (poll.state) {
      case 'running':
        if (job.status !== 'in_progress' || job.progress !== Math.round(poll.progress)) {
          await repo.update(job.id, { status: 'in_progress', progress: Math.round(poll.progress) }, this.options.instanceId);
        }
        return;
      case 'failed':
        return this.fail(job, hold, shared, poll.code, poll.message);
      case 'completed':
        return this.complete(job, hold, shared, provider, codec, ref, poll);
      default: {
        const unknown: never = poll;
        throw new Error(`unknown poll state ${JSON.stringify(unknown)}`);
      }
    }
  }

  private async complete(job: VideoJobRow, hold: Hold, shared: SharedHold | undefined, provider: ProviderRuntime, codec: VideoCodec, ref: JobRef, poll: Extract<VideoPoll, { state: 'completed' }>): Promise<void> {
    let bytes: Uint8Array;
    if ('bytes' in poll.download) bytes = poll.download.bytes;
    else {
      const response = await this.send(provider, codec.download(ref, poll.download.path));
      if (response.status >= 400) {
        await response.body.readAll(64 * 1024).catch(() => undefined);
        throw new Error(`upstream answered the video download with HTTP ${response.status}`);
      }
      bytes = await response.body.readAll(MAX_VIDEO_BYTES);
    }
    // the vendor's own count first; else the file's length; else what was ordered (and held)
    const seconds = poll.seconds ?? (await measureBytes(bytes, poll.contentType)) ?? job.seconds_requested;
    const media = await this.deps.media.save({ accountId: job.account_id, kind: 'video', contentType: poll.contentType, data: bytes });
    const model = this.deps.catalogue.get(job.model);
    const usage = { ...emptyUsage(), units: seconds };
    const cost = priceOf(model.pricing, usage, { unit: 'seconds' });
    // the charge is durable (with its usage row, in the settlement log) before the job says so:
    // a crash in between re-settles under the same key and request id (a no-op in the database)
    const row = usageRowOfJob(job, 200, usage, cost, null, Date.now());
    settleHeld(this.deps, heldOf(hold, shared), { entryKey: `charge:video:${job.id}`, requestId: job.request_id, note: `video ${job.id}`, costNano: cost, usage: () => row });
    this.holds.delete(job.id);
    this.deps.sync.recordUsage(row);
    await this.deps.sync.now();
    await this.deps.repos.videoJobs.update(
      job.id,
      { status: 'completed', progress: 100, cost_nano: cost, seconds_billed: seconds, media_id: media.id, completed_at: Date.now(), lease_owner: null, lease_expires_at: 0 },
      this.options.instanceId,
    );
  }

  private async fail(job: VideoJobRow, hold: Hold, shared: SharedHold | undefined, code: string, message: string): Promise<void> {
    releaseHeld(this.deps, heldOf(hold, shared));
    this.holds.delete(job.id);
    this.deps.sync.recordUsage(usageRowOfJob(job, 0, null, 0, code, Date.now()));
    await this.deps.repos.videoJobs.update(
      job.id,
      { status: 'failed', error_code: code, error_message: message, completed_at: Date.now(), lease_owner: null, lease_expires_at: 0 },
      this.options.instanceId,
    );
  }

  /** The job's holds; registered here first when the job was accepted elsewhere or before a restart. */
  private holdOf(job: VideoJobRow): { hold: Hold; shared: SharedHold | undefined } {
    let held = this.holds.get(job.id);
    if (!held) {
      held = {
        hold: this.deps.ledger.restore(job.account_id, job.key_id, job.hold_nano),
        shared: this.deps.sharedHolds?.takeOver(job.account_id, job.id, job.hold_nano, job.deadline_at),
      };
      this.holds.set(job.id, held);
    }
    return held;
  }

  private send(provider: ProviderRuntime, request: UpstreamRequest) {
    return this.deps.upstream.send(provider.upstream, {
      method: request.method ?? 'GET',
      path: request.path,
      headers: { ...authHeaders(provider.adapter.manifest.auth, provider.record.apiKey), ...request.headers },
      signal: timeoutSignal(this.options.requestTimeoutMs),
      firstByteMs: this.options.requestTimeoutMs,
    });
  }
}

const heldOf = (hold: Hold, shared: SharedHold | undefined): HeldMoney => ({ holds: [hold], shared: shared ? [shared] : [] });

/** The job's settlement as a usage row (its submission has its own, at no cost). */
function usageRowOfJob(job: VideoJobRow, status: number, usage: Usage | null, cost: number, error: string | null, now: number): NewUsageRow {
  return usageRow(
    {
      requestId: `${job.request_id}:settle`,
      accountId: job.account_id,
      keyId: job.key_id ?? '',
      model: job.model,
      endpoint: job.surface === 'generation' ? '/v1/videos/generations' : '/v1/videos',
      providerId: job.provider_id,
      status,
      usage,
      costNano: cost,
      startedAt: job.created_at,
      estimated: false,
      error,
      sessionId: null,
    },
    now,
  );
}
