import type { Static } from 'typebox';
import { invalidRequest } from '../../core/errors.ts';
import type { UsageFilter } from '../../store/repositories/usage-filter.ts';

const MAX_RANGE_MS = 400 * 86_400_000;

/** The filter's query fields, all optional. */
export const UsageFilterQuery = {
  from: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  to: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  key_id: { type: 'string', maxLength: 100 },
  model: { type: 'string', maxLength: 200 },
  endpoint: { type: 'string', maxLength: 200 },
  status: { type: 'string', pattern: '^(ok|error|[1-5][0-9][0-9])$' },
  account_id: { type: 'string', maxLength: 100 },
} as const;

export const RowsQuery = {
  type: 'object',
  properties: { ...UsageFilterQuery, limit: { type: 'integer', minimum: 1, maximum: 500 }, before: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  additionalProperties: false,
} as const;
export const SeriesQuery = {
  type: 'object',
  properties: {
    ...UsageFilterQuery,
    granularity: { anyOf: [{ type: 'string', const: 'hour' }, { type: 'string', const: 'day' }] },
    group: {
      anyOf: [
        { type: 'string', const: 'model' },
        { type: 'string', const: 'key' },
        { type: 'string', const: 'account' },
        { type: 'string', const: 'provider' },
        { type: 'string', const: 'none' },
      ],
    },
  },
  additionalProperties: false,
} as const;
export const ExportQuery = { type: 'object', properties: UsageFilterQuery, additionalProperties: false } as const;

export type FilterParams = Static<typeof ExportQuery>;

/**
 * The filter of a usage call. `accountId` is the caller's own account for customers (the
 * query's account_id is ignored) and the query's, if any, for operators.
 */
export function toFilter(q: FilterParams, accountId: string | undefined, now = Date.now()): UsageFilter {
  const to = q.to ?? now + 1;
  const from = q.from ?? to - 7 * 86_400_000;
  if (from >= to) throw invalidRequest('from must be before to', 'from');
  if (to - from > MAX_RANGE_MS) throw invalidRequest('The date range may span at most 400 days.', 'from');
  const status = q.status === undefined ? undefined : q.status === 'ok' || q.status === 'error' ? q.status : Number(q.status);
  return {
    from,
    to,
    accountId,
    keyId: q.key_id || undefined,
    model: q.model || undefined,
    endpoint: q.endpoint || undefined,
    status,
  };
}
