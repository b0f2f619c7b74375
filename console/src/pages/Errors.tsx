import { Layout } from '../components/Layout.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { t } from '../i18n/index.ts';
import type { SessionUser } from '../lib/api.ts';

export function Forbidden({ user, path }: { user: SessionUser; path: string }) {
  return (
    <Layout user={user} path={path} title={t('errors.forbiddenTitle')}>
      <Notice kind="error">{user.role === 'admin' ? t('errors.operatorOnly') : t('errors.forbidden')}</Notice>
      <p>
        <Link href={user.role === 'admin' ? '/admin' : '/'}>{t('errors.goHome')}</Link>
      </p>
    </Layout>
  );
}

export function NotFound({ user, path }: { user: SessionUser; path: string }) {
  return (
    <Layout user={user} path={path} title={t('errors.notFoundTitle')}>
      <p>{t('errors.notFound')}</p>
      <p>
        <Link href={user.role === 'admin' ? '/admin' : '/'}>{t('errors.goHome')}</Link>
      </p>
    </Layout>
  );
}
