import type { ConsoleDeps } from './deps.ts';
import { LoginLimiter, type LoginLimits } from './security/login-limiter.ts';
import { invitesRepository, type InvitesRepository } from '../store/repositories/console-invites.ts';
import { redemptionCodesRepository, type RedemptionCodesRepository } from '../store/repositories/redemption-codes.ts';
import { sessionsRepository, type SessionsRepository } from '../store/repositories/console-sessions.ts';
import { settingsRepository, type SettingsRepository } from '../store/repositories/console-settings.ts';
import { usersRepository, type UsersRepository } from '../store/repositories/console-users.ts';

/** What the console's routes share: the gateway's dependencies, the console's own tables and its sign-in limiter. */
export interface ConsoleContext {
  deps: ConsoleDeps;
  users: UsersRepository;
  sessions: SessionsRepository;
  settings: SettingsRepository;
  invites: InvitesRepository;
  codes: RedemptionCodesRepository;
  limiter: LoginLimiter;
  /** Secure cookies when the gateway is published over https */
  secureCookies: boolean;
  publicOrigin: string;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perIp: 30, perEmail: 10, windowSeconds: 15 * 60 };

export function createConsoleContext(deps: ConsoleDeps, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): ConsoleContext {
  const db = deps.store.db;
  const publicOrigin = new URL(deps.config.publicBaseUrl).origin;
  return {
    deps,
    users: usersRepository(db),
    sessions: sessionsRepository(db),
    settings: settingsRepository(db),
    invites: invitesRepository(db),
    codes: redemptionCodesRepository(db),
    limiter: new LoginLimiter(limits, deps.redis),
    secureCookies: publicOrigin.startsWith('https:'),
    publicOrigin,
  };
}
