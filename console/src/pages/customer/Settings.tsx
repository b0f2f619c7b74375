import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Layout, LanguageSwitch } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import { patch, post, session, signedIn, signedOut, type SessionUser } from '../../lib/api.ts';
import { navigate } from '../../lib/router.ts';
import type { PageProps } from '../types.ts';

function useForm() {
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = (action: () => Promise<string>) => async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await action());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, done, busy, run };
}

/** Profile, language, password, sign out everywhere. Operators use the same page. */
export function AccountSettings({ user }: { user: SessionUser }) {
  const [name, setName] = useState(user.name);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const profile = useForm();
  const password = useForm();
  const everywhere = useForm();

  return (
    <div class="grid-2">
      <section class="card">
        <h2>{t('settings.profile')}</h2>
        <form
          class="stack"
          onSubmit={profile.run(async () => {
            const answer = await patch<{ user: SessionUser }>('/profile', { name });
            session.set({ ...session.get(), user: answer.user });
            return t('settings.saved');
          })}
        >
          <Field label={t('auth.email')} value={user.email} readOnly />
          <Field label={t('auth.name')} value={name} onValue={setName} required maxLength={200} />
          <ErrorText error={profile.error} />
          {profile.done && <Notice kind="success">{profile.done}</Notice>}
          <div>
            <button type="submit" class="button primary" disabled={profile.busy}>
              {t('common.save')}
            </button>
          </div>
        </form>
        <h2 class="spaced">{t('common.language')}</h2>
        <LanguageSwitch />
      </section>
      <section class="card">
        <h2>{t('settings.password')}</h2>
        <form
          class="stack"
          onSubmit={password.run(async () => {
            signedIn(await post<{ csrf_token: string }>('/auth/password', { current_password: current, new_password: next }));
            setCurrent('');
            setNext('');
            return t('settings.passwordChanged');
          })}
        >
          <Field label={t('settings.currentPassword')} type="password" autoComplete="current-password" value={current} onValue={setCurrent} required />
          <Field label={t('settings.newPassword')} type="password" autoComplete="new-password" minLength={10} hint={t('auth.passwordHint')} value={next} onValue={setNext} required />
          <ErrorText error={password.error} />
          {password.done && <Notice kind="success">{password.done}</Notice>}
          <div>
            <button type="submit" class="button primary" disabled={password.busy}>
              {t('settings.changePassword')}
            </button>
          </div>
        </form>
        <h2 class="spaced">{t('settings.sessions')}</h2>
        <p class="hint">{t('settings.everywhereHint')}</p>
        <form
          onSubmit={everywhere.run(async () => {
            await post('/auth/logout-everywhere');
            signedOut();
            navigate('/login');
            return '';
          })}
        >
          <ErrorText error={everywhere.error} />
          <button type="submit" class="button danger">
            {t('settings.signOutEverywhere')}
          </button>
        </form>
      </section>
    </div>
  );
}

export function Settings({ user, path }: PageProps) {
  return (
    <Layout user={user} path={path} title={t('settings.title')}>
      <AccountSettings user={user} />
    </Layout>
  );
}
