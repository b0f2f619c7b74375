// What the video worker uses of the gateway. The composition root's Gateway satisfies it as it is.
import type { Logger } from 'pino';
import type { Ledger } from '../billing/ledger.ts';
import type { SharedHolds } from '../billing/shared-holds.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { Router } from '../pipeline/router.ts';
import type { UpstreamClient } from '../pipeline/upstream-client.ts';
import type { VideoJobsRepository } from '../store/repositories/video-jobs.ts';
import type { StateSync } from '../store/state-sync.ts';

export interface VideoWorkerDeps {
  log: Logger;
  repos: { videoJobs: Pick<VideoJobsRepository, 'claimable' | 'lease' | 'update' | 'releaseLeases'> };
  /** the finished video is kept and served by the gateway; expired media are swept on each pass */
  media: Pick<MediaStore, 'save' | 'sweep'>;
  router: Pick<Router, 'get'>;
  catalogue: Pick<Catalogue, 'get'>;
  /** the job's reservation is settled or released through the same ledger as every request */
  ledger: Pick<Ledger, 'settle' | 'release' | 'restore'>;
  sharedHolds: Pick<SharedHolds, 'takeOver' | 'settle' | 'release'> | undefined;
  /** the settlement log, when there is one, keeps the job's usage row with its charge */
  sync: Pick<StateSync, 'recordUsage' | 'now' | 'settlementLog'>;
  upstream: Pick<UpstreamClient, 'send'>;
}
