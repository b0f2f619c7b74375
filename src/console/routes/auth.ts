import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { ConsoleContext } from '../context.ts';
import { clientBaseUrl } from '../public-url.ts';
import { endSessionCookie, requireUser, requireUserHook, startSession } from '../security/session.ts';
import { bootstrapAdmin, changePassword, login, register } from '../services/auth.ts';
import type { User } from '../../store/repositories/console-users.ts';

const Str = <const Max extends number>(max: Max) => ({ type: 'string', maxLength: max }) as const;

const RegisterBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: Str(320), password: Str(1000), name: Str(200), invite_code: Str(200) },
  additionalProperties: false,
} as const;
const LoginBody = { type: 'object', required: ['email', 'password'], properties: { email: Str(320), password: Str(1000) }, additionalProperties: false } as const;
const BootstrapBody = {
  type: 'object',
  required: ['admin_token', 'email', 'password'],
  properties: { admin_token: Str(10_000), email: Str(320), password: Str(1000), name: Str(200) },
  additionalProperties: false,
} as const;
const PasswordBody = {
  type: 'object',
  required: ['current_password', 'new_password'],
  properties: { current_password: Str(1000), new_password: Str(1000) },
  additionalProperties: false,
} as const;
const ProfileBody = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 200 } }, additionalProperties: false } as const;

export function userView(user: User) {
  return { id: user.id, email: user.email, name: user.name, role: user.role, account_id: user.accountId };
}

/** Sign-up, sign-in, sign-out, password and profile. */
export function registerAuthRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/console/api/session', async (request: FastifyRequest) => {
    const settings = await ctx.settings.read();
    const signedIn = request.signedIn;
    return {
      user: signedIn ? userView(signedIn.user) : null,
      csrf_token: signedIn?.session.csrfToken ?? null,
      registration_mode: settings.registration_mode,
      operator_token_sign_in: ctx.deps.config.adminToken !== undefined,
      base_url: clientBaseUrl(ctx.deps.config, request),
    };
  });

  app.post<{ Body: Static<typeof RegisterBody> }>('/console/api/auth/register', { schema: { body: RegisterBody } }, async (request, reply) => {
    const user = await register(ctx, request.body, request.ip);
    const { csrfToken } = await startSession(ctx, request, reply, user);
    return reply.code(201).send({ user: userView(user), csrf_token: csrfToken });
  });

  app.post<{ Body: Static<typeof LoginBody> }>('/console/api/auth/login', { schema: { body: LoginBody } }, async (request, reply) => {
    const user = await login(ctx, request.body, request.ip);
    const { csrfToken } = await startSession(ctx, request, reply, user);
    return { user: userView(user), csrf_token: csrfToken };
  });

  app.post<{ Body: Static<typeof BootstrapBody> }>('/console/api/auth/operator-token', { schema: { body: BootstrapBody } }, async (request, reply) => {
    const user = await bootstrapAdmin(ctx, request.body, request.ip);
    const { csrfToken } = await startSession(ctx, request, reply, user);
    return reply.code(201).send({ user: userView(user), csrf_token: csrfToken });
  });

  app.post('/console/api/auth/logout', { preHandler: requireUserHook }, async (request, reply) => {
    await ctx.sessions.remove(requireUser(request).session.id);
    endSessionCookie(ctx, reply);
    return { signed_out: true };
  });

  app.post('/console/api/auth/logout-everywhere', { preHandler: requireUserHook }, async (request, reply) => {
    await ctx.sessions.removeForUser(requireUser(request).user.id);
    endSessionCookie(ctx, reply);
    return { signed_out: true };
  });

  // a new password ends every other session and rotates this one
  app.post<{ Body: Static<typeof PasswordBody> }>('/console/api/auth/password', { schema: { body: PasswordBody }, preHandler: requireUserHook }, async (request, reply) => {
    const { user } = requireUser(request);
    await changePassword(ctx, user.id, request.body.current_password, request.body.new_password);
    await ctx.sessions.removeForUser(user.id);
    const { csrfToken } = await startSession(ctx, request, reply, user);
    return { csrf_token: csrfToken };
  });

  app.patch<{ Body: Static<typeof ProfileBody> }>('/console/api/profile', { schema: { body: ProfileBody }, preHandler: requireUserHook }, async (request) => {
    const { user } = requireUser(request);
    await ctx.users.update(user.id, { name: request.body.name.trim() });
    return { user: userView({ ...user, name: request.body.name.trim() }) };
  });
}
