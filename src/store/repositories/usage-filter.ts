import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../schema.ts';

/** Filters shared by the usage rows, the rollup charts and the CSV export. */
export interface UsageFilter {
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  accountId?: string | undefined;
  keyId?: string | undefined;
  model?: string | undefined;
  endpoint?: string | undefined;
  /** 'ok' (< 400), 'error' (>= 400) or one status code; rollups know only ok/error */
  status?: 'ok' | 'error' | number | undefined;
}

type Dimensioned = 'usage_log' | 'usage_rollup_hour' | 'usage_rollup_day';

/** WHERE conditions on the dimensions every usage table shares. */
export function dimensionConditions<T extends Dimensioned>(eb: ExpressionBuilder<Database, T>, filter: UsageFilter) {
  const e = eb as unknown as ExpressionBuilder<Database, 'usage_log'>;
  const conditions = [];
  if (filter.accountId) conditions.push(e('account_id', '=', filter.accountId));
  if (filter.keyId) conditions.push(e('key_id', '=', filter.keyId));
  if (filter.model) conditions.push(e('model', '=', filter.model));
  if (filter.endpoint) conditions.push(e('endpoint', '=', filter.endpoint));
  return conditions;
}
