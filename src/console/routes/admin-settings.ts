import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { notFound } from '../../core/errors.ts';
import { usdString, usdToNano } from '../../core/money.ts';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import type { ConsoleSettings } from '../../store/repositories/console-settings.ts';

const NullableInt = <const Max extends number>(max: Max) => ({ anyOf: [{ type: 'integer', minimum: 1, maximum: max }, { type: 'null' }] }) as const;
const SettingsBody = {
  type: 'object',
  properties: {
    registration_mode: { anyOf: [{ type: 'string', const: 'open' }, { type: 'string', const: 'invite' }, { type: 'string', const: 'closed' }] },
    signup_credit_usd: { type: 'number', minimum: 0, maximum: 1_000_000 },
    default_key_rpm: NullableInt(100_000_000),
    default_key_tpm: NullableInt(10_000_000_000),
    default_key_max_spend_usd: { anyOf: [{ type: 'number', minimum: 0, maximum: 1_000_000 }, { type: 'null' }] },
    usage_retention_days: NullableInt(36_500),
    low_balance_usd: { type: 'number', minimum: 0, maximum: 1_000_000 },
  },
  additionalProperties: false,
} as const;
const InviteBody = {
  type: 'object',
  properties: { email: { type: 'string', maxLength: 320 }, note: { type: 'string', maxLength: 200 }, expires_in_days: { type: 'integer', minimum: 1, maximum: 365 } },
  additionalProperties: false,
} as const;

export function settingsView(s: ConsoleSettings) {
  return {
    registration_mode: s.registration_mode,
    signup_credit_usd: usdString(s.signup_credit_nano),
    default_key_rpm: s.default_key_rpm,
    default_key_tpm: s.default_key_tpm,
    default_key_max_spend_usd: s.default_key_max_spend_nano === null ? null : usdString(s.default_key_max_spend_nano),
    usage_retention_days: s.usage_retention_days,
    low_balance_usd: usdString(s.low_balance_nano),
  };
}

/** Registration mode, sign-up credit, default key limits, usage retention; invites. */
export function registerAdminSettingsRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const opts = { preHandler: requireAdminHook };

  app.get('/console/api/admin/settings', opts, async () => settingsView(await ctx.settings.read()));

  app.put<{ Body: Static<typeof SettingsBody> }>('/console/api/admin/settings', { ...opts, schema: { body: SettingsBody } }, async (request) => {
    const b = request.body;
    const patch: Partial<ConsoleSettings> = {
      ...(b.registration_mode !== undefined && { registration_mode: b.registration_mode }),
      ...(b.signup_credit_usd !== undefined && { signup_credit_nano: usdToNano(b.signup_credit_usd) }),
      ...(b.default_key_rpm !== undefined && { default_key_rpm: b.default_key_rpm }),
      ...(b.default_key_tpm !== undefined && { default_key_tpm: b.default_key_tpm }),
      ...(b.default_key_max_spend_usd !== undefined && { default_key_max_spend_nano: b.default_key_max_spend_usd === null ? null : usdToNano(b.default_key_max_spend_usd) }),
      ...(b.usage_retention_days !== undefined && { usage_retention_days: b.usage_retention_days }),
      ...(b.low_balance_usd !== undefined && { low_balance_nano: usdToNano(b.low_balance_usd) }),
    };
    await ctx.settings.write(patch);
    return settingsView(await ctx.settings.read());
  });

  app.get('/console/api/admin/invites', opts, async () => ({
    data: (await ctx.invites.list(200)).map((i) => ({
      code: i.code,
      email: i.email,
      note: i.note,
      created_at: new Date(i.createdAt).toISOString(),
      expires_at: i.expiresAt === null ? null : new Date(i.expiresAt).toISOString(),
      used_by: i.usedBy,
      used_at: i.usedAt === null ? null : new Date(i.usedAt).toISOString(),
    })),
  }));

  app.post<{ Body: Static<typeof InviteBody> }>('/console/api/admin/invites', { ...opts, schema: { body: InviteBody } }, async (request, reply) => {
    const code = `INV-${randomBytes(9).toString('base64url')}`;
    const b = request.body;
    const expiresAt = b.expires_in_days ? Date.now() + b.expires_in_days * 86_400_000 : null;
    await ctx.invites.insert({ code, email: b.email?.trim().toLowerCase() || null, note: b.note?.trim() || null, expiresAt });
    return reply.code(201).send({ code, expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString() });
  });

  app.delete<{ Params: { code: string } }>('/console/api/admin/invites/:code', opts, async (request) => {
    if (!(await ctx.invites.remove(request.params.code))) throw notFound('No unused invite with this code.', 'code');
    return { code: request.params.code, deleted: true };
  });
}
