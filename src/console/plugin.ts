import type { FastifyInstance } from 'fastify';
import type { WildcardParams } from '../http/routes/params.ts';
import { notFound } from '../core/errors.ts';
import type { ConsoleDeps } from './deps.ts';
import { createConsoleContext, type ConsoleContext } from './context.ts';
import { startHousekeeping } from './jobs.ts';
import { registerAdminAccountRoutes } from './routes/admin-accounts.ts';
import { registerAdminCatalogueRoutes } from './routes/admin-catalogue.ts';
import { registerAdminCodeRoutes } from './routes/admin-codes.ts';
import { registerAdminOverviewRoutes } from './routes/admin-overview.ts';
import { registerAdminSettingsRoutes } from './routes/admin-settings.ts';
import { registerAuthRoutes } from './routes/auth.ts';
import { registerCustomerRoutes } from './routes/customer.ts';
import { registerKeyRoutes } from './routes/keys.ts';
import { registerUsageRoutes } from './routes/usage.ts';
import { accountOf, requireAdminHook, requireCustomerHook } from './security/session.ts';
import { consoleRequestHook } from './security/session.ts';
import { SECURITY_HEADERS, StaticFiles } from './static-files.ts';
import { capBodiesWhen, CONSOLE_BODY_BYTES, limitBodies, PRE_SIGN_IN_BODY_BYTES } from '../http/body-limits.ts';

/**
 * The web console: its JSON API under /console/api (session cookie + CSRF token; API keys are
 * never accepted here) and the built front end under /console. Returns the context for tests.
 */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<ConsoleContext> {
  const ctx = createConsoleContext(deps, deps.config.consoleLogin);
  const files = new StaticFiles();

  await app.register(async (api) => {
    limitBodies(api, CONSOLE_BODY_BYTES);
    api.decorateRequest('signedIn', null);
    api.addHook('onRequest', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS).header('cache-control', 'no-store').header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
    });
    api.addHook('onRequest', consoleRequestHook(ctx));
    // after the session is known: before sign-in, small bodies only
    api.addHook('preParsing', capBodiesWhen(PRE_SIGN_IN_BODY_BYTES, 'before signing in', (request) => request.signedIn === null));
    registerAuthRoutes(api, ctx);
    registerCustomerRoutes(api, ctx);
    registerKeyRoutes(api, ctx);
    registerUsageRoutes(api, ctx, { prefix: '/console/api', preHandler: requireCustomerHook, accountOf, operator: false });
    registerAdminOverviewRoutes(api, ctx);
    registerAdminCatalogueRoutes(api, ctx);
    registerAdminAccountRoutes(api, ctx);
    registerAdminCodeRoutes(api, ctx);
    registerAdminSettingsRoutes(api, ctx);
    registerUsageRoutes(api, ctx, { prefix: '/console/api/admin', preHandler: requireAdminHook, accountOf: () => undefined, operator: true });
    api.all('/console/api/*', async (request) => {
      throw notFound(`There is no ${request.method} ${request.url.split('?')[0]} in the console API.`);
    });
  });

  app.get('/', async (_request, reply) => reply.redirect('/console/'));
  app.get('/console', async (_request, reply) => reply.redirect('/console/'));
  app.get<WildcardParams>('/console/*', async (request, reply) => files.send(request, reply, `/${request.params['*'] ?? ''}`));

  let stop: (() => void) | undefined;
  app.addHook('onReady', async () => {
    stop = startHousekeeping(ctx);
  });
  app.addHook('onClose', async () => stop?.());
  return ctx;
}
