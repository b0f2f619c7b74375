import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { LANGS, lang, setLang, t, type Key } from '../i18n/index.ts';
import { post, signedOut, type SessionUser } from '../lib/api.ts';
import { navigate } from '../lib/router.ts';
import { useStore } from '../lib/store.ts';
import { Icon, type IconName } from './Icon.tsx';
import { Link } from './Link.tsx';

interface NavItem {
  href: string;
  label: Key;
  icon: IconName;
}

export const CUSTOMER_NAV: NavItem[] = [
  { href: '/', label: 'nav.overview', icon: 'home' },
  { href: '/keys', label: 'nav.keys', icon: 'key' },
  { href: '/usage', label: 'nav.usage', icon: 'chart' },
  { href: '/billing', label: 'nav.billing', icon: 'wallet' },
  { href: '/models', label: 'nav.models', icon: 'cube' },
  { href: '/settings', label: 'nav.settings', icon: 'gear' },
];

export const OPERATOR_NAV: NavItem[] = [
  { href: '/admin', label: 'nav.overview', icon: 'home' },
  { href: '/admin/providers', label: 'nav.providers', icon: 'server' },
  { href: '/admin/models', label: 'nav.prices', icon: 'tag' },
  { href: '/admin/accounts', label: 'nav.accounts', icon: 'users' },
  { href: '/admin/codes', label: 'nav.codes', icon: 'ticket' },
  { href: '/admin/usage', label: 'nav.usage', icon: 'chart' },
  { href: '/admin/settings', label: 'nav.settings', icon: 'gear' },
];

export function LanguageSwitch() {
  const current = useStore(lang);
  return (
    <label class="lang-switch">
      <Icon name="globe" />
      <span class="sr-only">{t('common.language')}</span>
      <select value={current} onChange={(e) => setLang((e.currentTarget as HTMLSelectElement).value as 'en' | 'zh')}>
        {LANGS.map((l) => (
          <option key={l.id} value={l.id}>
            {l.label}
          </option>
        ))}
      </select>
    </label>
  );
}

async function signOut() {
  try {
    await post('/auth/logout');
  } finally {
    signedOut();
    navigate('/login');
  }
}

/** Sidebar navigation, the page title (which also names the document) and the page. */
export function Layout({ user, path, title, actions, children }: { user: SessionUser; path: string; title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const nav = user.role === 'admin' ? OPERATOR_NAV : CUSTOMER_NAV;
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    document.title = `${title} · modelgate`;
  }, [title]);
  const active = (href: string) => (href === '/' || href === '/admin' ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {t('common.skip')}
      </a>
      <aside class="sidebar">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            M
          </span>
          <span>modelgate</span>
          {user.role === 'admin' && <span class="role-tag">{t('nav.operator')}</span>}
        </div>
        <nav aria-label={t('nav.main')}>
          <ul>
            {nav.map((item) => (
              <li key={item.href}>
                <Link href={item.href} class={active(item.href) ? 'nav-link active' : 'nav-link'} aria-current={active(item.href) ? 'page' : undefined}>
                  <Icon name={item.icon} />
                  <span>{t(item.label)}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="sidebar-foot">
          <LanguageSwitch />
          <div class="who" title={user.email}>
            <span class="who-name">{user.name}</span>
            <span class="who-mail">{user.email}</span>
          </div>
          <button type="button" class="nav-link as-button" onClick={signOut}>
            <Icon name="logout" />
            <span>{t('nav.signOut')}</span>
          </button>
        </div>
      </aside>
      <main id="main" ref={main} tabIndex={-1}>
        <header class="page-head">
          <h1>{title}</h1>
          {actions && <div class="page-actions">{actions}</div>}
        </header>
        {children}
      </main>
    </div>
  );
}
