import type { AdmissionDeps } from '../admission.ts';
import type { AuthenticateDeps } from '../authenticate.ts';
import type { Config } from '../../config/env.ts';
import type { VideoWorker } from '../../jobs/video-worker.ts';
import type { MediaStore } from '../../media/media-store.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { Router } from '../../pipeline/router.ts';
import type { PipelineDeps } from '../../pipeline/types.ts';
import type { VideoJobsRepository } from '../../store/repositories/video-jobs.ts';
import type { StateSync } from '../../store/state-sync.ts';
import type { ResponseKeeper } from '../../store/response-keeper.ts';

/**
 * What each group of routes uses: the pipeline's dependencies (src/pipeline/types.ts), the back
 * office's (src/admin/deps.ts) and the few things beside them. The composition root's gateway
 * satisfies every one of them as it is; no route sees the whole gateway.
 */

/**
 * Every dialect's routes (src/http/routes/dialect-routes.ts): the pipeline, authentication and
 * admission in each dialect's scope, the output cap of a request that sets none, and the longer
 * wait for a media answer's upstream.
 */
export type DialectRouteDeps = PipelineDeps &
  AuthenticateDeps &
  AdmissionDeps & { config: Pick<Config, 'defaultMaxOutputTokens'> & { media: Pick<Config['media'], 'upstreamTimeoutMs'> }; responses?: Pick<ResponseKeeper, 'load' | 'save'> };

/** The stored responses' routes (GET/DELETE /v1/responses/{id}, its input items), scoped to the key's account. */
export type StoredResponseRouteDeps = { responses: Pick<ResponseKeeper, 'get' | 'delete' | 'listInputItems'> };

/** `/v1/models`: which providers serve which model, and the catalogue's owner of each. */
export type ModelListDeps = { router: Pick<Router, 'all' | 'servedModels' | 'serves'>; catalogue: PipelineDeps['catalogue'] };

/** Audio: uploads are spooled within these limits, media answers wait longer for the upstream. */
export type MediaRouteDeps = PipelineDeps & {
  config: { media: Pick<Config['media'], 'uploadDir' | 'maxUploadBytes' | 'maxUploadTotalBytes' | 'upstreamTimeoutMs'> };
};

/** Images: generated ones are stored and answered as signed links. */
export type ImageRouteDeps = MediaRouteDeps & { media: Pick<MediaStore, 'save' | 'link'> };

/** Video jobs: stored per account and handed to the worker that polls and settles them; their content is stored media. */
export type VideoRouteDeps = MediaRouteDeps & {
  config: { jobs: Pick<Config['jobs'], 'leaseMs' | 'timeoutMs'> };
  repos: { videoJobs: VideoJobsRepository };
  videoWorker: Pick<VideoWorker, 'instanceId' | 'adopt'>;
  media: Pick<MediaStore, 'get' | 'link' | 'open'>;
};

/** Signed links to stored media: the signature is the credential. */
export type SignedMediaDeps = { media: Pick<MediaStore, 'resolve' | 'open'> };

/** Health, readiness and metrics. `ready` is read on every probe: the gateway flips it while starting and stopping. */
export type SystemRouteDeps = {
  readonly ready: boolean;
  sync: Pick<StateSync, 'health'>;
  config: Pick<Config, 'flushLagReadyMs' | 'adminToken'>;
  metrics: Pick<Metrics, 'registry'>;
};
