import { keyView, limitsView } from '../admin/keys.ts';
import { usdString } from '../core/money.ts';
import type { ApiKeyRecord } from '../store/repositories/api-keys.ts';
import type { ConsoleDeps } from './deps.ts';

/** A key as the console shows it: the admin API's view, masked hint only, money as exact USD strings. */
export function consoleKeyView(deps: ConsoleDeps, record: ApiKeyRecord) {
  const { customer_limits: _customer, ...base } = keyView(deps, record, usdString);
  return {
    ...base,
    // the limits that apply: the tighter of the operator's and the customer's own, both shown beside
    ...limitsView(record, usdString),
    operator_limits: limitsView(record.operator, usdString),
    own_limits: limitsView(record.customer, usdString),
  };
}
