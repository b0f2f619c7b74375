import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticationError, GatewayError } from '../../core/errors.ts';
import type { ConsoleContext } from '../context.ts';
import type { SessionRecord } from '../../store/repositories/console-sessions.ts';
import type { User } from '../../store/repositories/console-users.ts';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { checkCsrfToken, checkOriginAndType } from './csrf.ts';

export const IDLE_MS = 7 * 24 * 3_600_000;
export const ABSOLUTE_MS = 30 * 24 * 3_600_000;
const TOUCH_EVERY_MS = 5 * 60_000;

export interface SignedIn {
  session: SessionRecord;
  user: User;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the console session behind this request (console API routes only) */
    signedIn: SignedIn | null;
  }
}

/** A new session (a fresh random token: sessions rotate at every sign-in) and its cookie. */
export async function startSession(ctx: ConsoleContext, request: FastifyRequest, reply: FastifyReply, user: User): Promise<{ csrfToken: string }> {
  const previous = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (previous) {
    const old = await ctx.sessions.find(previous);
    if (old) await ctx.sessions.remove(old.id);
  }
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await ctx.sessions.insert({
    token,
    userId: user.id,
    csrfToken,
    expiresAt: Date.now() + IDLE_MS,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  });
  reply.header('set-cookie', sessionCookie(token, Math.floor(ABSOLUTE_MS / 1000), ctx.secureCookies));
  return { csrfToken };
}

export function endSessionCookie(ctx: ConsoleContext, reply: FastifyReply): void {
  reply.header('set-cookie', clearedSessionCookie(ctx.secureCookies));
}

/**
 * onRequest for the console API: checks Origin and content type of writes, then resolves the
 * cookie to a live session and its user. API keys (Authorization headers) are never read here.
 */
export function consoleRequestHook(ctx: ConsoleContext) {
  return async (request: FastifyRequest) => {
    request.signedIn = null;
    checkOriginAndType(request, ctx.publicOrigin);
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token || token.length > 100) return;
    const session = await ctx.sessions.find(token);
    const now = Date.now();
    if (!session) return;
    if (session.expiresAt <= now || session.createdAt + ABSOLUTE_MS <= now) {
      await ctx.sessions.remove(session.id);
      return;
    }
    const user = await ctx.users.get(session.userId);
    if (!user || user.disabled) return;
    if (now - session.lastSeenAt > TOUCH_EVERY_MS) {
      await ctx.sessions.touch(session.id, now, Math.min(now + IDLE_MS, session.createdAt + ABSOLUTE_MS));
    }
    const { passwordHash: _hash, ...publicUser } = user;
    request.signedIn = { session, user: publicUser };
  };
}

const notSignedIn = () => authenticationError('Sign in to the console first.', 'not_signed_in');
const forbidden = (message: string) => new GatewayError({ status: 403, type: 'permission_error', message, code: 'forbidden' });

/** preHandler: a signed-in user (any role) whose writes carry the session's CSRF token. */
export function requireUser(request: FastifyRequest): SignedIn {
  const signedIn = request.signedIn;
  if (!signedIn) throw notSignedIn();
  checkCsrfToken(request, signedIn.session.csrfToken);
  return signedIn;
}

export async function requireUserHook(request: FastifyRequest): Promise<void> {
  requireUser(request);
}

export async function requireAdminHook(request: FastifyRequest): Promise<void> {
  const { user } = requireUser(request);
  if (user.role !== 'admin') throw forbidden('This page is for operators only.');
}

export async function requireCustomerHook(request: FastifyRequest): Promise<void> {
  const { user } = requireUser(request);
  if (!user.accountId) throw forbidden('This user has no account: operator users manage accounts from the operator pages.');
}

/** The account of the signed-in customer (after requireCustomerHook). */
export function accountOf(request: FastifyRequest): string {
  const accountId = request.signedIn?.user.accountId;
  if (!accountId) throw forbidden('This user has no account.');
  return accountId;
}
