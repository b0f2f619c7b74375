import { invalidRequest, notFound } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { nanoToUsd, usdToNano, type MoneyFormat } from '../core/money.ts';
import type { AdminDeps } from './deps.ts';
import { budgetPatch, budgetSpentView } from './budgets.ts';
import type { BudgetFields } from './schemas.ts';
import type { AccountListQuery, AccountRecord } from '../store/repositories/accounts.ts';

/** An account with its live balance: USD numbers for the admin API, exact strings for the console. */
export function accountView(deps: AdminDeps, record: AccountRecord): ReturnType<typeof viewOf<number>>;
export function accountView<T>(deps: AdminDeps, record: AccountRecord, money: MoneyFormat<T>): ReturnType<typeof viewOf<T>>;
export function accountView(deps: AdminDeps, record: AccountRecord, money: MoneyFormat<unknown> = nanoToUsd) {
  return viewOf(deps, record, money);
}

function viewOf<T>(deps: AdminDeps, record: AccountRecord, money: MoneyFormat<T>) {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    balance_usd: money(deps.ledger.balance(record.id) ?? record.balanceNano),
    reserved_usd: money(deps.ledger.reserved(record.id)),
    disabled: record.disabled,
    budget_usd: record.budgetNano === null ? null : money(record.budgetNano),
    budget_period: record.budgetPeriod,
    ...budgetSpentView(deps, 'account', record, money),
    created_at: new Date(record.createdAt).toISOString(),
  };
}

export async function createAccount(deps: AdminDeps, body: { name: string; email?: string | null }): Promise<AccountRecord> {
  const record = await deps.repos.accounts.insert({ id: newId('acct'), name: body.name, email: body.email ?? null });
  await deps.sync.refresh();
  return record;
}

/** A page of accounts, by name or email search and id cursor (see the repository). */
export async function listAccounts(deps: AdminDeps, query: AccountListQuery): Promise<AccountRecord[]> {
  return deps.repos.accounts.list(query);
}

export async function findAccount(deps: AdminDeps, id: string): Promise<AccountRecord> {
  const record = await deps.repos.accounts.get(id);
  if (!record) throw notFound(`No account with id "${id}".`, 'id');
  return record;
}

export async function updateAccount(deps: AdminDeps, id: string, body: { name?: string; email?: string | null; disabled?: boolean } & BudgetFields): Promise<AccountRecord> {
  const { budget_usd, budget_period, ...patch } = body;
  const current = budget_usd !== undefined || budget_period !== undefined ? await findAccount(deps, id) : undefined;
  const record = await deps.repos.accounts.update(id, { ...patch, ...budgetPatch({ ...(budget_usd !== undefined && { budget_usd }), ...(budget_period && { budget_period }) }, current) });
  if (!record) throw notFound(`No account with id "${id}".`, 'id');
  await deps.sync.refresh();
  return record;
}

/**
 * Adds (or, negative, corrects) credit. The journal entry is keyed by the idempotency key when
 * the caller sends one, so a retried credit is applied once. Resolves once it is durable.
 */
export async function creditAccount(
  deps: AdminDeps,
  id: string,
  body: { amount_usd: number; note?: string },
  idempotencyKey: string | undefined,
  requestId: string,
): Promise<number> {
  await findAccount(deps, id);
  const amount = usdToNano(body.amount_usd);
  if (amount === 0) throw invalidRequest('amount_usd must not be zero', 'amount_usd');
  const entryKey = idempotencyKey ? `credit:${id}:${idempotencyKey}` : `credit:${requestId}`;
  deps.ledger.adjust(id, amount, amount > 0 ? 'credit' : 'correction', entryKey, body.note ?? null);
  await deps.sync.now();
  return nanoToUsd(deps.ledger.balance(id) ?? 0);
}
