import { createHash, timingSafeEqual } from 'node:crypto';
import { createAccount, updateAccount } from '../../admin/accounts.ts';
import { authenticationError, GatewayError, invalidRequest } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { ConsoleContext } from '../context.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyDecoy, verifyPassword } from '../security/passwords.ts';
import { normaliseEmail, type User } from '../../store/repositories/console-users.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The one answer to every failed sign-in: it never says whether the email has an account. */
const badCredentials = () => authenticationError('Incorrect email or password.', 'invalid_credentials');
const conflict = (message: string, param: string) => new GatewayError({ status: 409, type: 'invalid_request_error', message, param, code: 'conflict' });
const forbidden = (message: string, code: string) => new GatewayError({ status: 403, type: 'permission_error', message, code });

export function checkEmail(email: string): string {
  const normal = normaliseEmail(email);
  if (normal.length > 254 || !EMAIL.test(normal)) throw invalidRequest('Enter a valid email address.', 'email');
  return normal;
}

export function checkNewPassword(password: string, param = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidRequest(`Use at least ${MIN_PASSWORD_LENGTH} characters for the password.`, param, 'password_too_short');
  if (password.length > MAX_PASSWORD_LENGTH) throw invalidRequest(`Use at most ${MAX_PASSWORD_LENGTH} characters for the password.`, param);
}

function withoutHash(user: User & { passwordHash?: string }): User {
  const { passwordHash: _hash, ...rest } = user;
  return rest;
}

export interface Registration {
  email: string;
  password: string;
  name?: string | undefined;
  invite_code?: string | undefined;
}

/**
 * A customer signs up: a new account (the wallet) and its user, sign-up credit if the operator
 * set one. Allowed when registration is open, or invite-only with an unused invite.
 */
export async function register(ctx: ConsoleContext, input: Registration, ip: string): Promise<User> {
  await ctx.limiter.attempt(ip);
  const settings = await ctx.settings.read();
  if (settings.registration_mode === 'closed') throw forbidden('Registration is closed. Ask the operator for an account.', 'registration_closed');
  const email = checkEmail(input.email);
  checkNewPassword(input.password);
  const name = (input.name ?? '').trim() || email;
  if (await ctx.users.byEmail(email)) throw conflict('This email is already registered: sign in instead.', 'email');
  const userId = newId('user');
  if (settings.registration_mode === 'invite') {
    const code = (input.invite_code ?? '').trim();
    if (!code || !(await ctx.invites.use(code, email, userId, Date.now()))) {
      throw forbidden('Registration needs a valid invite code.', 'invite_required');
    }
  }
  const passwordHash = await hashPassword(input.password);
  const deps = ctx.deps;
  const account = await createAccount(deps, { name, email });
  let user: User;
  try {
    user = await ctx.users.insert({ id: userId, email, name, passwordHash, role: 'customer', accountId: account.id });
  } catch {
    await updateAccount(deps, account.id, { disabled: true });
    throw conflict('This email is already registered: sign in instead.', 'email');
  }
  if (settings.signup_credit_nano > 0) {
    deps.ledger.adjust(account.id, settings.signup_credit_nano, 'credit', `signup:${account.id}`, 'Sign-up credit');
    await deps.sync.now();
  }
  return user;
}

export async function login(ctx: ConsoleContext, input: { email: string; password: string }, ip: string): Promise<User> {
  await ctx.limiter.attempt(ip, input.email);
  const found = input.email.length <= 254 ? await ctx.users.byEmail(input.email) : undefined;
  const ok = found && input.password.length <= MAX_PASSWORD_LENGTH ? await verifyPassword(input.password, found.passwordHash) : await verifyDecoy(input.password);
  if (!found || !ok || found.disabled) throw badCredentials();
  await ctx.limiter.succeeded(input.email);
  return withoutHash(found);
}

function adminTokenMatches(expected: string | undefined, presented: string): boolean {
  if (!expected) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}

/**
 * Whoever holds MODELGATE_ADMIN_TOKEN already controls the gateway through the admin API; the
 * console lets them turn it into an operator user (email and password) once, or add another.
 */
export async function bootstrapAdmin(ctx: ConsoleContext, input: { admin_token: string; email: string; password: string; name?: string | undefined }, ip: string): Promise<User> {
  await ctx.limiter.attempt(ip);
  if (!ctx.deps.config.adminToken) throw forbidden('MODELGATE_ADMIN_TOKEN is not set on the gateway; create the first operator with "npm run admin:create".', 'admin_token_unset');
  if (!adminTokenMatches(ctx.deps.config.adminToken, input.admin_token)) throw authenticationError('Invalid operator token.', 'invalid_admin_token');
  return createAdmin(ctx, input);
}

/** Also used by the command line (`npm run admin:create`). */
export async function createAdmin(ctx: Pick<ConsoleContext, 'users'>, input: { email: string; password: string; name?: string | undefined }): Promise<User> {
  const email = checkEmail(input.email);
  checkNewPassword(input.password);
  if (await ctx.users.byEmail(email)) throw conflict('A user with this email already exists.', 'email');
  const passwordHash = await hashPassword(input.password);
  return ctx.users.insert({ id: newId('user'), email, name: (input.name ?? '').trim() || email, passwordHash, role: 'admin', accountId: null });
}

export async function changePassword(ctx: ConsoleContext, userId: string, current: string, next: string): Promise<void> {
  const user = await ctx.users.get(userId);
  if (!user || !(await verifyPassword(current, user.passwordHash))) {
    throw invalidRequest('The current password is not correct.', 'current_password', 'invalid_credentials');
  }
  checkNewPassword(next, 'new_password');
  await ctx.users.update(userId, { passwordHash: await hashPassword(next) });
}
