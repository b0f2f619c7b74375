import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Gateway } from './gateway.ts';
import { adminAuth } from './http/admin-auth.ts';
import { clientErrorHandler, frameworkErrors } from './http/client-errors.ts';
import { errorHandler } from './http/error-handler.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { correlationIdOf } from './http/request-context.ts';
import { validatorCompiler } from './http/validators.ts';
import { closeSilentConnections, serverTimeoutOptions } from './http/server-timeouts.ts';
import { ADMIN_BODY_BYTES, limitBodies } from './http/body-limits.ts';
import { registerAccountRoutes } from './http/routes/admin/accounts.ts';
import { registerKeyRoutes } from './http/routes/admin/keys.ts';
import { registerModelAdminRoutes } from './http/routes/admin/models.ts';
import { registerProviderRoutes } from './http/routes/admin/providers.ts';
import { registerMediaRoutes } from './http/routes/media.ts';
import { registerSystemRoutes } from './http/routes/system.ts';
import { registerDialects } from './http/routes/dialect-routes.ts';
import { registerAudioRoutes } from './http/routes/v1/audio.ts';
import { registerImageRoutes } from './http/routes/v1/images.ts';
import { registerRetrievalRoutes } from './http/routes/v1/retrieval.ts';
import { registerVideoRoutes } from './http/routes/v1/videos.ts';
import { registerConsole } from './console/plugin.ts';
import { registerModelRoutes } from './http/routes/v1/models.ts';
import { registerStoredResponseRoutes } from './http/routes/v1/responses.ts';
import { googleKeyConstraint, registerGoogleModelRoutes } from './http/routes/v1/google-models.ts';
import { newRequestId } from './core/ids.ts';
import { realtimeUpgradeHandler, registerRealtimeRoute } from './realtime/upgrade.ts';

/**
 * The HTTP application: every plugin registered explicitly, in order. Tests call it too.
 * Client routes are mounted per dialect from src/dialects/registry.ts: each authenticates in
 * onRequest (before the body is read) with its own key places, and is admitted (rate limit,
 * balance) in preHandler, before any work on the body;
 * admin routes check the admin token; every answer carries x-request-id. Realtime
 * WebSocket upgrades are handled by src/realtime on the server's `upgrade` event.
 */
export async function buildApp(gateway: Gateway): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: gateway.log as FastifyBaseLogger,
    // one log line per request is written by the pipeline, with tokens and cost
    logController: new LogController({ disableRequestLogging: true }),
    // no child logger per request (its bindings went through redaction: ~1 % of the CPU); the
    // gateway's own lines carry reqId themselves, Fastify's rare warnings go without it
    childLoggerFactory: (logger) => logger,
    bodyLimit: gateway.config.maxBodyBytes,
    genReqId: () => newRequestId(),
    return503OnClosing: true,
    keepAliveTimeout: 65_000,
    // slow clients: headers and the whole request within their timeouts, silent sockets closed
    ...serverTimeoutOptions(gateway.config.server),
    // what Fastify and Node's parser refuse before any route runs, in the gateway's envelope
    frameworkErrors,
    clientErrorHandler,
  });
  closeSilentConnections(app.server, gateway.config.server.headersTimeoutMs);
  app.setValidatorCompiler(validatorCompiler());
  // JSON bodies nested deeper than a limit are refused while parsing, before anything recurses
  registerJsonBodyParser(app);

  app.decorateRequest('principal', null);
  app.decorateRequest('correlationId', '');
  app.decorateRequest('admission', null);
  // a callback hook: an async one would cost a promise chain on every request
  app.addHook('onRequest', (request, reply, done) => {
    request.correlationId = correlationIdOf(request);
    reply.header('x-request-id', request.correlationId);
    done();
  });
  app.setErrorHandler(errorHandler(gateway));
  // every dialect's routes from the registry; the OpenAI wire's hand-written ones join its scope
  // `GET /v1/models` is Google's list for a key sent Google's way, OpenAI's otherwise
  app.addConstraintStrategy(googleKeyConstraint);
  await registerDialects(app, gateway, {
    google: (scope) => registerGoogleModelRoutes(scope, gateway),
    openai: async (v1) => {
      registerModelRoutes(v1, gateway);
      registerRetrievalRoutes(v1, gateway);
      // multipart forms (audio, image edits, videos) are read as streams by the routes; files are
      // spooled to disk, each one refused past MODELGATE_MAX_UPLOAD_BYTES. The plugin lives in this
      // scope only: its two async hooks ran on every request of every route when it was global.
      await v1.register(async (uploads) => {
        await uploads.register(multipart, { limits: { fileSize: gateway.config.media.maxUploadBytes } });
        registerAudioRoutes(uploads, gateway);
        registerImageRoutes(uploads, gateway);
        registerVideoRoutes(uploads, gateway);
      });
    },
    responses: (scope) => registerStoredResponseRoutes(scope, gateway),
  });

  registerMediaRoutes(app, gateway);

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(gateway.config.adminToken));
    limitBodies(admin, ADMIN_BODY_BYTES);
    registerProviderRoutes(admin, gateway);
    registerModelAdminRoutes(admin, gateway);
    registerAccountRoutes(admin, gateway);
    registerKeyRoutes(admin, gateway);
  });

  // the web console: its own JSON API (session cookies, never API keys) and static pages
  await registerConsole(app, gateway);

  registerSystemRoutes(app, gateway);

  // GET /v1/realtime: WebSocket upgrades on the same port, outside Fastify's request cycle
  app.server.on('upgrade', realtimeUpgradeHandler(gateway));
  registerRealtimeRoute(app);
  // upgraded sockets would keep server.close() waiting: end the sessions (1001) and bill them first
  app.addHook('preClose', async () => {
    await gateway.realtime.closeAll();
  });
  return app;
}
