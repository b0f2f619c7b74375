import { Type, type Static } from 'typebox';
import { invalidRequest } from '../../core/errors.ts';
import type { UsageFilter } from '../../store/repositories/usage-filter.ts';

const MAX_RANGE_MS = 400 * 86_400_000;

export const UsageFilterQuery = {
  from: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  to: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  key_id: Type.Optional(Type.String({ maxLength: 100 })),
  model: Type.Optional(Type.String({ maxLength: 200 })),
  endpoint: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.String({ pattern: '^(ok|error|[1-5][0-9][0-9])$' })),
  account_id: Type.Optional(Type.String({ maxLength: 100 })),
};

export const RowsQuery = Type.Object(
  { ...UsageFilterQuery, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })), before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) },
  { additionalProperties: false },
);
export const SeriesQuery = Type.Object(
  {
    ...UsageFilterQuery,
    granularity: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')])),
    group: Type.Optional(Type.Union([Type.Literal('model'), Type.Literal('key'), Type.Literal('account'), Type.Literal('provider'), Type.Literal('none')])),
  },
  { additionalProperties: false },
);
export const ExportQuery = Type.Object(UsageFilterQuery, { additionalProperties: false });

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
