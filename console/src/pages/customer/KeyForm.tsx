import { useState } from 'preact/hooks';
import { Field, Select } from '../../components/Field.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { date, dateInputValue, money, parseDateInput } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import type { BudgetView } from '../../components/BudgetLine.tsx';

/** One hand's limits on a key: the operator's, or the customer's own. */
export interface KeyLimits {
  disabled: boolean;
  expires_at: string | null;
  rpm: number | null;
  tpm: number | null;
  max_spend_usd: string | null;
  models: string[] | null;
  budget_usd: string | null;
  budget_period: BudgetPeriod | null;
}

type BudgetPeriod = 'day' | 'week' | 'month';

/** The limit fields are what applies: the tighter of `operator_limits` and `own_limits`. */
export interface KeyView extends BudgetView {
  id: string;
  name: string | null;
  key_hint: string;
  status: 'active' | 'disabled' | 'expired';
  disabled: boolean;
  expires_at: string | null;
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  max_spend_usd: string | null;
  spent_usd: string;
  last_used_at: string | null;
  created_at: string;
  operator_limits: KeyLimits;
  own_limits: KeyLimits;
}

export interface KeyBody {
  name: string | null;
  expires_at: string | null;
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  max_spend_usd: number | null;
  budget_usd?: number | null;
  budget_period?: BudgetPeriod;
}

const optionalNumber = (value: string): number | null => (value.trim() === '' ? null : Number(value));

/** Name, expiry, allowed models, rate limits and the spend cap of a key. */
export function KeyForm({ initial, submitLabel, onSubmit }: { initial?: KeyView; submitLabel: string; onSubmit: (body: KeyBody) => Promise<void> }) {
  const models = useData(() => get<{ data: Array<{ id: string }> }>('/models'));
  // the form edits the customer's own limits; the operator's are shown and hold regardless
  const own = initial?.own_limits;
  const imposed = initial ? operatorLimitsText(initial.operator_limits) : '';
  const [name, setName] = useState(initial?.name ?? '');
  const [expires, setExpires] = useState(own?.expires_at ? dateInputValue(Date.parse(own.expires_at)) : '');
  const [restrict, setRestrict] = useState(own?.models !== null && own?.models !== undefined);
  const [allowed, setAllowed] = useState<string[]>(own?.models ?? []);
  const [rpm, setRpm] = useState(own?.rpm?.toString() ?? '');
  const [tpm, setTpm] = useState(own?.tpm?.toString() ?? '');
  const [cap, setCap] = useState(own?.max_spend_usd ?? '');
  const [budget, setBudget] = useState(own?.budget_usd ?? '');
  // a budget under the operator's counts the operator's period
  const [period, setPeriod] = useState<BudgetPeriod>(own?.budget_period ?? initial?.operator_limits.budget_period ?? 'month');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const day = parseDateInput(expires);
      await onSubmit({
        name: name.trim() || null,
        // the key works through the whole chosen day
        expires_at: day === undefined ? null : new Date(day + 86_400_000 - 1000).toISOString(),
        models: restrict ? allowed : null,
        rpm: optionalNumber(rpm),
        tpm: optionalNumber(tpm),
        max_spend_usd: optionalNumber(cap),
        // an unchanged empty budget is not sent: under an operator's budget "none" would be refused
        ...(budget.trim() === '' ? (own?.budget_usd ? { budget_usd: null } : {}) : { budget_usd: Number(budget), budget_period: period }),
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const toggle = (id: string, on: boolean) => setAllowed((list) => (on ? [...list, id] : list.filter((m) => m !== id)));

  return (
    <form onSubmit={submit} class="stack">
      <ErrorText error={error} />
      {imposed && <Notice>{t('keys.operatorLimits', { limits: imposed })}</Notice>}
      <Field label={t('keys.name')} name="name" value={name} onValue={setName} maxLength={200} placeholder={t('keys.namePlaceholder')} />
      <Field label={t('keys.expires')} type="date" name="expires" value={expires} onValue={setExpires} hint={t('keys.expiresHint')} />
      <fieldset class="fieldset">
        <legend>{t('keys.models')}</legend>
        <label class="check">
          <input type="checkbox" checked={restrict} onChange={(e) => setRestrict((e.currentTarget as HTMLInputElement).checked)} />
          {t('keys.restrictModels')}
        </label>
        {restrict && (
          <div class="check-grid">
            {(models.data?.data ?? []).map((m) => (
              <label class="check" key={m.id}>
                <input type="checkbox" checked={allowed.includes(m.id)} onChange={(e) => toggle(m.id, (e.currentTarget as HTMLInputElement).checked)} />
                <code>{m.id}</code>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div class="row">
        <Field label={t('keys.rpm')} type="number" min={1} step={1} name="rpm" value={rpm} onValue={setRpm} hint={t('keys.noLimitHint')} />
        <Field label={t('keys.tpm')} type="number" min={1} step={1} name="tpm" value={tpm} onValue={setTpm} hint={t('keys.noLimitHint')} />
      </div>
      <Field label={t('keys.cap')} type="number" min={0} step="any" name="max_spend_usd" value={cap} onValue={setCap} hint={t('keys.capHint')} />
      <div class="row">
        <Field label={t('keys.budget')} type="number" min={0} step="any" name="budget_usd" value={budget} onValue={setBudget} hint={t('keys.budgetHint')} />
        <Select
          label={t('keys.budgetPeriod')}
          name="budget_period"
          value={period}
          onValue={(value) => setPeriod(value as BudgetPeriod)}
          options={[
            { value: 'day', label: t('budget.day') },
            { value: 'week', label: t('budget.week') },
            { value: 'month', label: t('budget.month') },
          ]}
        />
      </div>
      <div class="dialog-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? t('common.working') : submitLabel}
        </button>
      </div>
    </form>
  );
}

/** The operator's limits in words ("" when there are none): the customer may only set tighter ones. */
export function operatorLimitsText(limits: KeyLimits): string {
  const parts: string[] = [];
  if (limits.disabled) parts.push(t('keys.status.disabled'));
  if (limits.expires_at) parts.push(`${t('keys.expires')} ${date(limits.expires_at)}`);
  if (limits.rpm !== null) parts.push(`${t('keys.rpm')} ${limits.rpm}`);
  if (limits.tpm !== null) parts.push(`${t('keys.tpm')} ${limits.tpm}`);
  if (limits.max_spend_usd !== null) parts.push(`${t('keys.cap')} ${money(limits.max_spend_usd)}`);
  if (limits.budget_usd !== null && limits.budget_period !== null) parts.push(`${t('keys.budget')} ${t('budget.per', { budget: money(limits.budget_usd), period: t(`budget.${limits.budget_period}`) })}`);
  if (limits.models !== null) parts.push(`${t('keys.models')} ${limits.models.join(', ')}`);
  return parts.join(' · ');
}
