import { useEffect, useState } from 'preact/hooks';
import { Store } from './store.ts';

const BASE = '/console';

function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

export const route = new Store<{ path: string; search: URLSearchParams }>({ path: currentPath(), search: new URLSearchParams(location.search) });

function sync(): void {
  route.set({ path: currentPath(), search: new URLSearchParams(location.search) });
}

window.addEventListener('popstate', sync);

export function navigate(to: string, replace = false): void {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  sync();
  window.scrollTo(0, 0);
}

/** Search parameters of the current page, kept in the address so a view can be shared and reloaded. */
export function setSearch(params: Record<string, string | undefined>): void {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v);
  const qs = search.toString();
  history.replaceState(null, '', `${location.pathname}${qs ? `?${qs}` : ''}`);
  route.set({ path: currentPath(), search });
}

export function useRoute() {
  const [value, setValue] = useState(route.get());
  useEffect(() => route.subscribe(setValue), []);
  return value;
}

/** Matches "/admin/accounts/:id" against a path; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}
