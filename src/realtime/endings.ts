// Why the gateway ends a live session, and what the client hears: a close code and reason, after
// an `error` event that says why (README, Realtime).
import type { Principal } from '../auth/key-store.ts';
import { authenticationError, invalidRequest, type GatewayError } from '../core/errors.ts';
import type { SessionDeps } from './deps.ts';
import { CLOSE, errorEvent } from './frames.ts';

export interface Ending {
  code: number;
  reason: string;
  /** an `error` event the client receives before the close */
  event?: string;
}

/** Graceful shutdown: 1001, and no event. */
export const shutdownEnding = (): Ending => ({ code: CLOSE.goingAway, reason: 'server shutting down' });

export const idleEnding = (): Ending => ({
  code: CLOSE.policy,
  reason: 'idle_timeout',
  event: errorEvent(invalidRequest('The session was idle for too long and has been closed.', null, 'session_idle_timeout')),
});

export const expiredEnding = (): Ending => ({
  code: CLOSE.policy,
  reason: 'session_expired',
  event: errorEvent(invalidRequest('The session reached its maximum duration and has been closed. Open a new session to continue.', null, 'session_expired')),
});

/** The balance cannot cover the next response: `clientEventId` names the event refused, if one was. */
export const quotaEnding = (error: GatewayError, clientEventId: string | null): Ending => ({ code: CLOSE.policy, reason: 'insufficient_quota', event: errorEvent(error, clientEventId) });

/**
 * A session outlives the authentication of its handshake: each sync cycle and after every key or
 * account change it ends when its key was revoked, disabled or expired, or its account disabled.
 * null: the session may go on.
 */
export function revocation(deps: Pick<SessionDeps, 'keys' | 'ledger'>, principal: Principal, now: number): Ending | null {
  const refusal =
    deps.keys.refusalFor(principal.key.id, now) ??
    (deps.ledger.isAccountDisabled(principal.accountId) ? authenticationError('The account of this API key is disabled. Contact the operator.', 'account_disabled') : null);
  return refusal ? { code: CLOSE.policy, reason: refusal.code ?? 'key_unusable', event: errorEvent(refusal) } : null;
}
