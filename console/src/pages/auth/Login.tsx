import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import { post, session, signedIn, type SessionUser } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import { useStore } from '../../lib/store.ts';
import { AuthFrame } from './AuthFrame.tsx';

export function Login() {
  const s = useStore(session);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await post<{ user: SessionUser; csrf_token: string }>('/auth/login', { email, password });
      signedIn(answer);
      navigate(answer.user.role === 'admin' ? '/admin' : '/', true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame
      title={t('auth.signInTitle')}
      footer={
        <>
          {s.registrationMode !== 'closed' && (
            <p>
              {t('auth.noAccount')} <Link href="/register">{t('auth.register')}</Link>
            </p>
          )}
          {s.operatorTokenSignIn && (
            <p>
              <Link href="/operator-token">{t('auth.operatorToken')}</Link>
            </p>
          )}
        </>
      }
    >
      <form onSubmit={submit} class="stack">
        <ErrorText error={error} />
        <Field label={t('auth.email')} type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
        <Field label={t('auth.password')} type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <button type="submit" class="button primary block" disabled={busy}>
          {busy ? t('common.working') : t('auth.signIn')}
        </button>
      </form>
    </AuthFrame>
  );
}
