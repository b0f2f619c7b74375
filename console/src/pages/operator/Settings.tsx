import { useEffect, useState } from 'preact/hooks';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Field } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Table } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { del, get, post, put } from '../../lib/api.ts';
import { date } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import { AccountSettings } from '../customer/Settings.tsx';
import type { PageProps } from '../types.ts';

interface SettingsView {
  registration_mode: 'open' | 'invite' | 'closed';
  signup_credit_usd: string;
  default_key_rpm: number | null;
  default_key_tpm: number | null;
  default_key_max_spend_usd: string | null;
  usage_retention_days: number | null;
  low_balance_usd: string;
}

interface Invite {
  code: string;
  email: string | null;
  note: string | null;
  created_at: string;
  expires_at: string | null;
  used_by: string | null;
}

const MODES = ['open', 'invite', 'closed'] as const;
const num = (v: string) => (v.trim() === '' ? null : Number(v));

function SettingsForm() {
  const loaded = useData(() => get<SettingsView>('/admin/settings'));
  const [form, setForm] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    const s = loaded.data;
    if (!s) return;
    setForm({
      registration_mode: s.registration_mode,
      signup_credit_usd: s.signup_credit_usd,
      default_key_rpm: s.default_key_rpm?.toString() ?? '',
      default_key_tpm: s.default_key_tpm?.toString() ?? '',
      default_key_max_spend_usd: s.default_key_max_spend_usd ?? '',
      usage_retention_days: s.usage_retention_days?.toString() ?? '',
      low_balance_usd: s.low_balance_usd,
    });
  }, [loaded.data]);
  const set = (k: string) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await put('/admin/settings', {
        registration_mode: form.registration_mode,
        signup_credit_usd: Number(form.signup_credit_usd || 0),
        default_key_rpm: num(form.default_key_rpm ?? ''),
        default_key_tpm: num(form.default_key_tpm ?? ''),
        default_key_max_spend_usd: num(form.default_key_max_spend_usd ?? ''),
        usage_retention_days: num(form.usage_retention_days ?? ''),
        low_balance_usd: Number(form.low_balance_usd || 0),
      });
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  if (!loaded.data) return <ErrorText error={loaded.error} />;
  return (
    <form class="stack" onSubmit={submit}>
      <fieldset class="fieldset">
        <legend>{t('opsettings.registration')}</legend>
        {MODES.map((m) => (
          <label class="check" key={m}>
            <input type="radio" name="registration_mode" value={m} checked={form.registration_mode === m} onChange={() => set('registration_mode')(m)} />
            <span>
              <strong>{t(`opsettings.mode.${m}`)}</strong> — {t(`opsettings.modeHint.${m}`)}
            </span>
          </label>
        ))}
      </fieldset>
      <div class="row">
        <Field label={t('opsettings.signupCredit')} type="number" min={0} step="any" value={form.signup_credit_usd} onValue={set('signup_credit_usd')} hint={t('opsettings.signupCreditHint')} />
        <Field label={t('opsettings.lowBalance')} type="number" min={0} step="any" value={form.low_balance_usd} onValue={set('low_balance_usd')} hint={t('opsettings.lowBalanceHint')} />
      </div>
      <div class="row three">
        <Field label={t('opsettings.defaultRpm')} type="number" min={1} step={1} value={form.default_key_rpm} onValue={set('default_key_rpm')} hint={t('keys.noLimitHint')} />
        <Field label={t('opsettings.defaultTpm')} type="number" min={1} step={1} value={form.default_key_tpm} onValue={set('default_key_tpm')} hint={t('keys.noLimitHint')} />
        <Field label={t('opsettings.defaultCap')} type="number" min={0} step="any" value={form.default_key_max_spend_usd} onValue={set('default_key_max_spend_usd')} hint={t('keys.noLimitHint')} />
      </div>
      <Field label={t('opsettings.retention')} type="number" min={1} step={1} value={form.usage_retention_days} onValue={set('usage_retention_days')} hint={t('opsettings.retentionHint')} />
      <ErrorText error={error} />
      {saved && <Notice kind="success">{t('settings.saved')}</Notice>}
      <div>
        <button type="submit" class="button primary">
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

function Invites() {
  const list = useData(() => get<{ data: Invite[] }>('/admin/invites'));
  const [email, setEmail] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const answer = await post<{ code: string }>('/admin/invites', { ...(email.trim() && { email: email.trim() }), expires_in_days: 30 });
      setCreated(answer.code);
      setEmail('');
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <form class="inline-form" onSubmit={create}>
        <Field label={t('opsettings.inviteEmail')} type="email" value={email} onValue={setEmail} hint={t('opsettings.inviteEmailHint')} />
        <button type="submit" class="button">
          {t('opsettings.createInvite')}
        </button>
      </form>
      <ErrorText error={error} />
      {created && (
        <Notice kind="success">
          {t('opsettings.inviteCreated')} <code>{created}</code> <CopyButton text={created} />
        </Notice>
      )}
      <Table
        caption={t('opsettings.invites')}
        rows={list.data?.data ?? []}
        rowKey={(i) => i.code}
        empty={t('opsettings.noInvites')}
        columns={[
          { label: t('opsettings.invite'), rowHeader: true, render: (i) => <code class="small">{i.code}</code> },
          { label: t('auth.email'), render: (i) => i.email ?? t('opsettings.anyEmail') },
          { label: t('codes.expires'), render: (i) => (i.expires_at ? date(i.expires_at) : '—') },
          { label: t('codes.status'), render: (i) => (i.used_by ? t('opsettings.used') : t('opsettings.unused')) },
          {
            label: t('common.actions'),
            render: (i) =>
              i.used_by ? null : (
                <button type="button" class="button small danger" onClick={() => del(`/admin/invites/${encodeURIComponent(i.code)}`).then(list.reload, setError)}>
                  {t('common.delete')}
                </button>
              ),
          },
        ]}
      />
    </>
  );
}

export function OperatorSettings({ user, path }: PageProps) {
  return (
    <Layout user={user} path={path} title={t('opsettings.title')}>
      <section class="card">
        <h2>{t('opsettings.gateway')}</h2>
        <SettingsForm />
      </section>
      <section class="card">
        <h2>{t('opsettings.invites')}</h2>
        <Invites />
      </section>
      <h2 class="section-title">{t('opsettings.yourAccount')}</h2>
      <AccountSettings user={user} />
    </Layout>
  );
}
