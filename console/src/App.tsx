import { useEffect } from 'preact/hooks';
import { lang } from './i18n/index.ts';
import { loadSession, session } from './lib/api.ts';
import { match, navigate, useRoute } from './lib/router.ts';
import { useStore } from './lib/store.ts';
import { Forbidden, NotFound } from './pages/Errors.tsx';
import { Login } from './pages/auth/Login.tsx';
import { OperatorToken } from './pages/auth/OperatorToken.tsx';
import { Register } from './pages/auth/Register.tsx';
import { CUSTOMER_ROUTES } from './pages/customer/routes.ts';
import { OPERATOR_ROUTES } from './pages/operator/routes.ts';

const PUBLIC = ['/login', '/register', '/operator-token'];

/** Session first; then the page for the path, if this user may see it. */
export function App() {
  const s = useStore(session);
  const { path } = useRoute();
  const language = useStore(lang);

  useEffect(() => {
    loadSession().catch(() => session.set({ ...session.get(), loaded: true }));
  }, []);

  const signedIn = s.user !== null;
  useEffect(() => {
    if (!s.loaded) return;
    if (!signedIn && !PUBLIC.includes(path)) navigate('/login', true);
    if (signedIn && PUBLIC.includes(path)) navigate(s.user!.role === 'admin' ? '/admin' : '/', true);
    if (signedIn && s.user!.role === 'admin' && path === '/') navigate('/admin', true);
  }, [s.loaded, signedIn, path]);

  if (!s.loaded) return <div class="boot" aria-busy="true" />;
  if (!s.user) {
    if (path === '/register') return <Register key={language} />;
    if (path === '/operator-token') return <OperatorToken key={language} />;
    return <Login key={language} />;
  }
  const user = s.user;
  const operatorPath = path === '/admin' || path.startsWith('/admin/');
  if (operatorPath && user.role !== 'admin') return <Forbidden user={user} path={path} />;
  if (!operatorPath && user.role === 'admin') return <Forbidden user={user} path={path} />;
  const routes = operatorPath ? OPERATOR_ROUTES : CUSTOMER_ROUTES;
  for (const r of routes) {
    const params = match(r.pattern, path);
    if (params) {
      const Page = r.page;
      return <Page key={`${language}:${path}`} user={user} path={path} params={params} />;
    }
  }
  return <NotFound user={user} path={path} />;
}
