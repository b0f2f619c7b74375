import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Hold } from '../../../billing/ledger.ts';
import type { SharedHold } from '../../../billing/shared-holds.ts';
import { invalidRequest, notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { VideoCall, VideoSubmitted } from '../../../core/ir/media.ts';
import { videoGenerationSchema, videoJobSchema, videoListQuery } from '../../../dialects/openai/media-schemas.ts';
import { decodeVideo, DEFAULT_VIDEO_MODEL, generationView, videoView } from '../../../dialects/openai/videos.ts';
import type { VideoRouteDeps } from '../deps.ts';
import { readMultipart } from '../../../media/uploads.ts';
import type { DecodedResponse, TargetInfo } from '../../../core/contracts/vendor-codec.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import type { VideoJobRow } from '../../../store/schema.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../../core/model-param.ts';
import { contextOf } from '../../request-context.ts';
import type { IdParams } from '../params.ts';

type Surface = 'generation' | 'video';
/** A JSON body is checked by its schema (application/json only); a multipart form leaves it undefined, a text/plain body is a string. */
type JobRoute = { Body: Static<typeof videoJobSchema> | string | undefined };
/** No schema: a repeated parameter arrives as an array. */
type ContentRoute = IdParams & { Querystring: { variant?: string | string[] } };

/**
 * Video jobs (contract §3): `/v1/videos/generations` (the gateway's own shape) and the widely
 * used job API `/v1/videos`. Submission reserves `seconds × per_second` and hands the hold to
 * the job; the worker settles it. Reads are idempotent and limited to the key's account.
 */
export function registerVideoRoutes(fastify: FastifyInstance, deps: VideoRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const jobs = deps.repos.videoJobs;

  async function submit(request: FastifyRequest, reply: FastifyReply, surface: Surface, model: string, call: VideoCall) {
    const ctx = contextOf(request);
    const principal = request.principal!;
    const respond = async (decoded: DecodedResponse<VideoSubmitted>, info: { target: TargetInfo; hold: Hold; shared: SharedHold | undefined }) => {
      const now = Date.now();
      const job: VideoJobRow = {
        id: newId('video'),
        account_id: principal.accountId,
        key_id: principal.key.id,
        request_id: ctx.requestId,
        model,
        provider_id: info.target.providerId,
        upstream_model: info.target.upstreamModel,
        upstream_id: decoded.result!.upstreamId,
        prompt: call.prompt,
        seconds_requested: call.seconds,
        size: call.size ?? null,
        surface,
        status: 'queued',
        progress: 0,
        hold_nano: info.hold.amount,
        cost_nano: 0,
        seconds_billed: null,
        media_id: null,
        error_code: null,
        error_message: null,
        lease_owner: deps.videoWorker.instanceId,
        lease_expires_at: now + deps.config.jobs.leaseMs,
        deadline_at: now + deps.config.jobs.timeoutMs,
        created_at: now,
        updated_at: now,
        completed_at: null,
      };
      await jobs.insert(job);
      deps.videoWorker.adopt(job, info.hold, info.shared);
      return { body: JSON.stringify(await view(job, surface)), contentType: 'application/json', holdTaken: true };
    };
    await runOperation(
      deps,
      ctx,
      {
        operation: 'videos',
        endpoint: surface === 'generation' ? '/v1/videos/generations' : '/v1/videos',
        model,
        call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: call.seconds },
        meter: { unit: 'seconds' },
        firstByteTimeoutMs: deps.config.media.upstreamTimeoutMs,
        respond,
      },
      reply,
    );
    return reply;
  }

  async function view(job: VideoJobRow, surface: Surface): Promise<Record<string, unknown>> {
    const media = job.media_id ? await deps.media.get(job.media_id) : undefined;
    const expiresAt = media?.expires_at ?? null;
    if (surface === 'video') return videoView(job, expiresAt);
    return generationView(job, media ? deps.media.link(media) : null, expiresAt);
  }

  async function owned(request: FastifyRequest<IdParams>): Promise<VideoJobRow> {
    const id = request.params.id;
    const job = await jobs.get(id, request.principal!.accountId);
    if (!job) throw notFound(`No video job ${id} exists for this account.`, 'id', 'video_not_found');
    return job;
  }

  app.post('/v1/videos/generations', { schema: { body: videoGenerationSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model;
    checkModelAllowed(request.principal!, model);
    const call = decodeVideo({ prompt: body.prompt, seconds: body.duration, size: body.size }, deps.catalogue.get(model), 'duration');
    return submit(request, reply, 'generation', model, call);
  });

  app.get<IdParams>('/v1/videos/generations/:id', async (request) => view(await owned(request), 'generation'));

  // a JSON body is checked by its schema; a multipart form field by field below
  app.post<JobRoute>('/v1/videos', { schema: { body: { content: { 'application/json': { schema: videoJobSchema } } } } }, async (request, reply) => {
    const media = deps.config.media;
    const form = request.isMultipart() ? await readMultipart(request, reply, media) : undefined;
    try {
      const json: Static<typeof videoJobSchema> = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const field = (name: keyof typeof json) => (form ? form.field(name) : json[name]);
      if (form?.files.length) throw invalidRequest('input_reference is not supported by this gateway yet; send a prompt only.', 'input_reference');
      const model = modelParam(field('model') ?? DEFAULT_VIDEO_MODEL);
      checkModelAllowed(request.principal!, model);
      const call = decodeVideo({ prompt: field('prompt'), seconds: field('seconds'), size: field('size') }, deps.catalogue.get(model), 'seconds');
      return await submit(request, reply, 'video', model, call);
    } finally {
      await form?.cleanup();
    }
  });

  app.get('/v1/videos', { schema: { querystring: videoListQuery } }, async (request) => {
    const query = request.query;
    const limit = Math.min(100, Math.max(1, Number(query.limit ?? 20) || 20));
    const order = query.order === 'asc' ? 'asc' : 'desc';
    const after = query.after ? await jobs.get(query.after, request.principal!.accountId) : undefined;
    const rows = await jobs.list(request.principal!.accountId, { limit: limit + 1, order, ...(after && { after }) });
    const page = rows.slice(0, limit);
    const data = await Promise.all(page.map((job) => view(job, 'video')));
    return { object: 'list', data, has_more: rows.length > limit, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
  });

  app.get<IdParams>('/v1/videos/:id', async (request) => view(await owned(request), 'video'));

  app.get<ContentRoute>('/v1/videos/:id/content', async (request, reply) => {
    const job = await owned(request);
    const variant = request.query.variant ?? 'video';
    if (variant !== 'video') throw invalidRequest(`variant "${variant}" is not available; only "video" is stored.`, 'variant');
    if (job.status !== 'completed' || !job.media_id) throw notFound(`Video ${job.id} has no content (status: ${job.status}).`, 'id', 'video_not_ready');
    const media = await deps.media.get(job.media_id);
    const opened = media && media.expires_at > Date.now() ? await deps.media.open(media) : undefined;
    if (!media || !opened) throw notFound(`The content of video ${job.id} has expired.`, 'id', 'video_expired');
    reply.header('content-type', media.content_type).header('content-length', String(opened.size));
    return reply.send(opened.stream);
  });

  app.delete<IdParams>('/v1/videos/:id', async (request) => {
    const job = await owned(request);
    if (job.status === 'queued' || job.status === 'in_progress') throw invalidRequest(`Video ${job.id} is still ${job.status}; it can be deleted once it has finished.`, 'id');
    await jobs.remove(job.id, request.principal!.accountId);
    return { id: job.id, object: 'video.deleted', deleted: true };
  });
}
