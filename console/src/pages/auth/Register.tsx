import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import { post, session, signedIn, type SessionUser } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import { useStore } from '../../lib/store.ts';
import { AuthFrame } from './AuthFrame.tsx';

export function Register() {
  const s = useStore(session);
  const [form, setForm] = useState({ name: '', email: '', password: '', invite_code: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { email: form.email, password: form.password, name: form.name, ...(s.registrationMode === 'invite' && { invite_code: form.invite_code }) };
      const answer = await post<{ user: SessionUser; csrf_token: string }>('/auth/register', body);
      signedIn(answer);
      navigate('/', true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const footer = (
    <p>
      {t('auth.haveAccount')} <Link href="/login">{t('auth.signIn')}</Link>
    </p>
  );
  if (s.registrationMode === 'closed') {
    return (
      <AuthFrame title={t('auth.registerTitle')} footer={footer}>
        <Notice kind="info">{t('auth.registrationClosed')}</Notice>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title={t('auth.registerTitle')} footer={footer}>
      <form onSubmit={submit} class="stack">
        <ErrorText error={error} />
        <Field label={t('auth.name')} name="name" autoComplete="name" value={form.name} onValue={set('name')} />
        <Field label={t('auth.email')} type="email" name="email" autoComplete="email" required value={form.email} onValue={set('email')} />
        <Field
          label={t('auth.password')}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={10}
          hint={t('auth.passwordHint')}
          value={form.password}
          onValue={set('password')}
        />
        {s.registrationMode === 'invite' && (
          <Field label={t('auth.inviteCode')} name="invite_code" required hint={t('auth.inviteHint')} value={form.invite_code} onValue={set('invite_code')} />
        )}
        <button type="submit" class="button primary block" disabled={busy}>
          {busy ? t('common.working') : t('auth.createAccount')}
        </button>
      </form>
    </AuthFrame>
  );
}
