import { GatewayError } from '../../core/errors.ts';
import { nanoToUsd } from '../../core/money.ts';
import type { KeyLimits } from '../../store/repositories/api-keys.ts';

type Limit = 'expiresAt' | 'rpm' | 'tpm' | 'maxSpendNano';
const FIELDS: ReadonlyArray<[Limit, string, (value: number) => string]> = [
  ['expiresAt', 'expires_at', (at) => new Date(at).toISOString()],
  ['rpm', 'rpm', String],
  ['tpm', 'tpm', String],
  ['maxSpendNano', 'max_spend_usd', (nano) => `$${nanoToUsd(nano)}`],
];

/**
 * A customer may tighten their key's limits, never lift the operator's: a patch that would
 * enable a key the operator disabled, set a limit looser than (or no limit above) the
 * operator's, or allow a model the operator's allowlist does not, is refused with a 403 naming the field. Anything within the operator's limits is
 * the customer's own to set and change.
 */
export function refuseLoosening(operator: KeyLimits, patch: Partial<KeyLimits>): void {
  if (patch.disabled === false && operator.disabled) {
    throw forbidden('The operator disabled this key; only the operator can enable it.', 'disabled');
  }
  if (patch.models !== undefined && operator.models !== null) {
    const allowed = operator.models;
    const beyond = patch.models === null ? ['every model'] : patch.models.filter((model) => !allowed.includes(model));
    if (beyond.length > 0) {
      throw forbidden(`The operator allows this key only ${allowed.join(', ')}; ${beyond.join(', ')} cannot be added.`, 'models');
    }
  }
  refuseLooserBudget(operator, patch);
  for (const [limit, field, show] of FIELDS) {
    const imposed = operator[limit];
    const wanted = patch[limit];
    if (wanted === undefined || imposed === null) continue;
    if (wanted === null || wanted > imposed) {
      throw forbidden(`The operator limits ${field} of this key to ${show(imposed)}; you may set a tighter limit only.`, field);
    }
  }
}

/** Under the operator's budget a customer's own counts the same period and is no larger (or none at all above it). */
function refuseLooserBudget(operator: KeyLimits, patch: Partial<KeyLimits>): void {
  if (operator.budgetNano === null || operator.budgetPeriod === null) return;
  if (patch.budgetNano === undefined && patch.budgetPeriod === undefined) return;
  const imposed = `$${nanoToUsd(operator.budgetNano)} per ${operator.budgetPeriod}`;
  if (patch.budgetPeriod !== undefined && patch.budgetPeriod !== null && patch.budgetPeriod !== operator.budgetPeriod) {
    throw forbidden(`The operator's budget of this key is ${imposed}; your own budget must count the same period.`, 'budget_period');
  }
  if (patch.budgetNano === null || (patch.budgetNano !== undefined && patch.budgetNano > operator.budgetNano)) {
    throw forbidden(`The operator limits budget_usd of this key to ${imposed}; you may set a tighter budget only.`, 'budget_usd');
  }
}

function forbidden(message: string, param: string): GatewayError {
  return new GatewayError({ status: 403, type: 'permission_error', message, param, code: 'operator_limit' });
}
