import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import { post, signedIn, type SessionUser } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import { AuthFrame } from './AuthFrame.tsx';

/** The first operator: whoever holds MODELGATE_ADMIN_TOKEN creates an operator user here. */
export function OperatorToken() {
  const [form, setForm] = useState({ admin_token: '', name: '', email: '', password: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await post<{ user: SessionUser; csrf_token: string }>('/auth/operator-token', form);
      signedIn(answer);
      navigate('/admin', true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title={t('auth.operatorTitle')}
      footer={
        <p>
          <Link href="/login">{t('auth.backToSignIn')}</Link>
        </p>
      }
    >
      <p class="muted">{t('auth.operatorIntro')}</p>
      <form onSubmit={submit} class="stack">
        <ErrorText error={error} />
        <Field label={t('auth.adminToken')} type="password" name="admin_token" autoComplete="off" required value={form.admin_token} onValue={set('admin_token')} />
        <Field label={t('auth.name')} name="name" autoComplete="name" value={form.name} onValue={set('name')} />
        <Field label={t('auth.email')} type="email" name="email" autoComplete="username" required value={form.email} onValue={set('email')} />
        <Field label={t('auth.password')} type="password" name="password" autoComplete="new-password" required minLength={10} hint={t('auth.passwordHint')} value={form.password} onValue={set('password')} />
        <button type="submit" class="button primary block" disabled={busy}>
          {busy ? t('common.working') : t('auth.createOperator')}
        </button>
      </form>
    </AuthFrame>
  );
}
