import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { VideoJobStatus } from '../core/contracts/video-job.ts';
import type { ConsoleTables } from './console-schema.ts';

/**
 * Table shapes. Times are epoch milliseconds, money is integer nano-dollars, flags are 0/1
 * integers and structured values are JSON text: one representation on SQLite and PostgreSQL.
 * Rows that the in-memory state mirrors carry `seq`, taken from one global counter, so every
 * instance can poll "what changed since seq N" cheaply.
 */

type Int = ColumnType<number, number, number>;
/** an integer column with a default: optional on insert */
type DefaultInt = ColumnType<number, number | undefined, number>;
type Flag = ColumnType<number, number | undefined, number>;

export interface MetaTable {
  name: string;
  value: Int;
}

export interface ProvidersTable {
  id: string;
  name: string;
  type: string;
  base_url: string;
  api_key: string;
  models: string; // JSON string[]
  model_map: string; // JSON Record<string,string>
  priority: Int;
  weight: Int;
  enabled: Flag;
  settings: string; // JSON ProviderSettings
  deleted: Flag;
  seq: Int;
  created_at: Int;
  updated_at: Int;
}

export interface ModelOverridesTable {
  model: string;
  pricing: string | null; // JSON PricingUsd
  capabilities: string | null; // JSON
  seq: Int;
  updated_at: Int;
}

/** 007-budgets, on accounts and keys alike: the periodic budget and the charges per period kind (start of the period counted, its sum) */
interface PeriodBudgetColumns {
  budget_nano: number | null;
  budget_period: string | null;
  spent_day_start: DefaultInt;
  spent_day_nano: DefaultInt;
  spent_week_start: DefaultInt;
  spent_week_nano: DefaultInt;
  spent_month_start: DefaultInt;
  spent_month_nano: DefaultInt;
}

export interface AccountsTable extends PeriodBudgetColumns {
  id: string;
  name: string;
  email: string | null;
  balance_nano: Int;
  disabled: Flag;
  seq: Int;
  created_at: Int;
  updated_at: Int;
}

export interface ApiKeysTable extends PeriodBudgetColumns {
  id: string;
  account_id: string;
  name: string | null;
  key_hash: string;
  key_hint: string;
  expires_at: number | null;
  disabled: Flag;
  revoked: Flag;
  models: string | null; // JSON string[] allowlist
  rpm: number | null;
  tpm: number | null;
  max_spend_nano: number | null;
  /** the customer's own limits (the columns above are the operator's); 006-operator-key-limits */
  customer_disabled: Flag;
  customer_expires_at: number | null;
  customer_rpm: number | null;
  customer_tpm: number | null;
  customer_max_spend_nano: number | null;
  customer_models: string | null; // JSON string[] allowlist
  customer_budget_nano: number | null;
  customer_budget_period: string | null;
  spent_nano: Int;
  last_used_at: number | null;
  seq: Int;
  created_at: Int;
  updated_at: Int;
}

export type LedgerKind = 'credit' | 'charge' | 'refund' | 'correction' | 'redemption';

export interface LedgerTable {
  id: Generated<number>;
  /** idempotency key: a charge is `charge:<request id>`; writing it twice is a no-op */
  entry_key: string;
  account_id: string;
  key_id: string | null;
  request_id: string | null;
  kind: LedgerKind;
  amount_nano: Int;
  note: string | null;
  created_at: Int;
}

export interface UsageTable {
  id: Generated<number>;
  request_id: string;
  created_at: Int;
  account_id: string;
  key_id: string;
  model: string;
  endpoint: string;
  provider_id: string | null;
  status: Int;
  prompt_tokens: Int;
  completion_tokens: Int;
  cached_tokens: Int;
  units: number;
  cost_nano: Int;
  latency_ms: Int;
  estimated: Flag;
  error_type: string | null;
  session_id: string | null;
}

/** A row the write-behind flush could not write (migration 005): kept for an operator, with the database's error. */
export interface DeadLettersTable {
  id: Generated<number>;
  /** the table the row was bound for (`usage_log`) */
  table_name: string;
  /** the row's identity there (a usage row's request id) */
  row_key: string;
  error: string;
  /** the row's columns as JSON text */
  row_json: string;
  created_at: Int;
}

/** 008-responses: a stored response of the Responses dialect; `*_json` columns are JSON text in its wire shape */
export interface ResponsesTable {
  id: string;
  account_id: string;
  key_id: string | null;
  model: string;
  created_at: Int;
  expires_at: Int;
  status: string;
  previous_response_id: string | null;
  instructions_json: string | null;
  input_json: string;
  output_json: string;
  usage_json: string | null;
  /** 009: the response object's members that echo the request, or null (kept before 009) */
  settings_json: string | null;
}

/** 009-response-items: a stored response's output item, by id (what an `item_reference` names) */
export interface ResponseItemsTable {
  response_id: string;
  item_id: string;
  account_id: string;
}

export interface GatewaySecretsTable {
  name: string;
  value: string;
  created_at: Int;
}

export type MediaKind = 'image' | 'video';

export interface MediaObjectsTable {
  id: string;
  account_id: string;
  kind: MediaKind;
  content_type: string;
  bytes: Int;
  storage_key: string;
  created_at: Int;
  expires_at: Int;
}

export interface VideoJobsTable {
  id: string;
  account_id: string;
  key_id: string | null;
  request_id: string;
  model: string;
  provider_id: string;
  upstream_model: string;
  upstream_id: string;
  prompt: string;
  seconds_requested: Int;
  size: string | null;
  /** which client surface created it: `video` (the /v1/videos job API) or `generation` */
  surface: string;
  status: VideoJobStatus;
  progress: Int;
  /** the reservation the job holds until it settles */
  hold_nano: Int;
  cost_nano: Int;
  seconds_billed: number | null;
  media_id: string | null;
  error_code: string | null;
  error_message: string | null;
  /** the instance whose worker owns the job (and its reservation) until the lease expires */
  lease_owner: string | null;
  lease_expires_at: Int;
  /** past this, an unfinished job fails and its hold is released */
  deadline_at: Int;
  created_at: Int;
  updated_at: Int;
  completed_at: number | null;
}

export interface Database extends ConsoleTables {
  meta: MetaTable;
  providers: ProvidersTable;
  model_overrides: ModelOverridesTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger: LedgerTable;
  usage_log: UsageTable;
  dead_letters: DeadLettersTable;
  gateway_secrets: GatewaySecretsTable;
  media_objects: MediaObjectsTable;
  video_jobs: VideoJobsTable;
  responses: ResponsesTable;
  response_items: ResponseItemsTable;
}

export type ProviderRow = Selectable<ProvidersTable>;
export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LedgerRow = Selectable<LedgerTable>;
export type UsageRow = Selectable<UsageTable>;
export type ModelOverrideRow = Selectable<ModelOverridesTable>;
export type NewLedgerRow = Insertable<LedgerTable>;
/** A usage row as the write-behind writes it: every column given, null where there is nothing. */
export type NewUsageRow = Required<Omit<Insertable<UsageTable>, 'id'>>;
export type MediaObjectRow = Selectable<MediaObjectsTable>;
export type VideoJobRow = Selectable<VideoJobsTable>;
export type NewVideoJobRow = Insertable<VideoJobsTable>;
export type ResponseRow = Selectable<ResponsesTable>;
