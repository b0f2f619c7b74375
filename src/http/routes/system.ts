import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.ts';
import type { SystemRouteDeps } from './deps.ts';
import { adminAuth } from '../admin-auth.ts';

/** Paths of the compatible surface, to recognise a base URL that lacks `/v1`. */
const V1_SUFFIXES = [
  '/chat/completions',
  '/completions',
  '/embeddings',
  '/models',
  '/audio/',
  '/images/',
  '/moderations',
  '/rerank',
  '/messages',
  '/videos',
  '/realtime',
];

export function registerSystemRoutes(app: FastifyInstance, deps: SystemRouteDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  // not ready while starting or stopping, and while writes wait too long for the database (its
  // flush keeps failing): a balancer then sends requests to instances that can bill them
  app.get('/readyz', async (_request, reply) => {
    const health = deps.sync.health();
    const flush = {
      lag_ms: health.lagMs,
      pending_writes: health.pending,
      dead_letters: health.deadLetters,
      stuck_journal_entries: health.stuckEntries,
    };
    if (!deps.ready) return reply.code(503).send({ status: 'not ready', flush });
    if (health.lagMs > deps.config.flushLagReadyMs) return reply.code(503).send({ status: 'not ready', reason: 'flush_lag', flush });
    return { status: 'ready', flush };
  });

  app.get('/metrics', { onRequest: adminAuth(deps.config.adminToken) }, async (_request, reply) => {
    reply.header('content-type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });

  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0] ?? '';
    const suffix = V1_SUFFIXES.find((s) => path === s || path.startsWith(s.endsWith('/') ? s : `${s}/`) || path.startsWith(s));
    if (suffix && !path.startsWith('/v1')) {
      throw notFound(
        `There is no ${request.method} ${path}: the base URL must include /v1. Use ${request.method} /v1${path} (for SDKs, set base_url to http(s)://<host>/v1).`,
        null,
        'missing_v1_prefix',
      );
    }
    throw notFound(`There is no ${request.method} ${path} on this gateway. The API lives under /v1 (see GET /v1/models).`, null, 'unknown_path');
  });
}
