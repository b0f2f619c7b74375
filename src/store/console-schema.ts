import type { ColumnType } from 'kysely';

/**
 * Tables of the web console (people, sessions, settings, redemption codes) and the usage
 * rollups its charts read. Same conventions as schema.ts: epoch milliseconds, integer
 * nano-dollars, 0/1 flags, JSON text.
 */

type Int = ColumnType<number, number, number>;
type Flag = ColumnType<number, number | undefined, number>;

export type UserRole = 'customer' | 'admin';

export interface ConsoleUsersTable {
  id: string;
  /** lower-cased; unique */
  email: string;
  name: string;
  /** PHC string: $argon2id$v=19$m=…,t=…,p=…$salt$hash */
  password_hash: string;
  role: UserRole;
  /** the customer's account (the wallet); null for operators */
  account_id: string | null;
  disabled: Flag;
  created_at: Int;
  updated_at: Int;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie value: a stolen table does not yield live sessions */
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: Int;
  last_seen_at: Int;
  expires_at: Int;
  ip: string | null;
  user_agent: string | null;
}

export interface ConsoleSettingsTable {
  name: string;
  value: string; // JSON
  updated_at: Int;
}

export interface ConsoleInvitesTable {
  code: string;
  email: string | null;
  note: string | null;
  created_at: Int;
  expires_at: number | null;
  used_by: string | null;
  used_at: number | null;
}

export interface RedemptionCodesTable {
  id: string;
  code: string;
  batch: string;
  amount_nano: Int;
  note: string | null;
  expires_at: number | null;
  revoked: Flag;
  redeemed_by: string | null;
  redeemed_at: number | null;
  created_at: Int;
}

/** Latency histogram bucket bounds (ms) of the rollups; the last bucket is everything above. */
export const LATENCY_BOUNDS_MS = [100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;
export const LATENCY_COLUMNS = ['lat_0', 'lat_1', 'lat_2', 'lat_3', 'lat_4', 'lat_5', 'lat_6', 'lat_7', 'lat_8'] as const;
export type LatencyColumn = (typeof LATENCY_COLUMNS)[number];

/** One row per bucket (hour or UTC day) and dimension set; every measure is a sum. */
export type UsageRollupTable = {
  bucket: Int;
  account_id: string;
  key_id: string;
  model: string;
  /** '' when no provider was reached */
  provider_id: string;
  endpoint: string;
  /** 1 for answers with status >= 400 */
  is_error: Int;
  requests: Int;
  prompt_tokens: Int;
  completion_tokens: Int;
  cached_tokens: Int;
  units: number;
  cost_nano: Int;
  latency_ms_sum: Int;
} & Record<LatencyColumn, Int>;

export interface ConsoleTables {
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_settings: ConsoleSettingsTable;
  console_invites: ConsoleInvitesTable;
  redemption_codes: RedemptionCodesTable;
  usage_rollup_hour: UsageRollupTable;
  usage_rollup_day: UsageRollupTable;
}
