import { Store } from './store.ts';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: 'customer' | 'admin';
  account_id: string | null;
}

export interface SessionState {
  loaded: boolean;
  user: SessionUser | null;
  csrf: string | null;
  registrationMode: 'open' | 'invite' | 'closed';
  operatorTokenSignIn: boolean;
  baseUrl: string;
}

export const session = new Store<SessionState>({
  loaded: false,
  user: null,
  csrf: null,
  registrationMode: 'open',
  operatorTokenSignIn: false,
  baseUrl: '',
});

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly param: string | null;

  constructor(status: number, message: string, code: string | null, param: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The console API: same origin, session cookie, CSRF token on writes, JSON only. */
export async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers } };
  if (method !== 'GET') {
    const csrf = session.get().csrf;
    init.headers = { ...init.headers, 'content-type': 'application/json', ...(csrf && { 'x-csrf-token': csrf }) };
    init.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(`/console/api${path}`, init);
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const error = (data as { error?: { message?: string; code?: string; param?: string } } | undefined)?.error;
    if (res.status === 401 && error?.code === 'not_signed_in') session.set({ ...session.get(), user: null, csrf: null });
    throw new ApiError(res.status, error?.message ?? res.statusText, error?.code ?? null, error?.param ?? null);
  }
  return data as T;
}

export const get = <T>(path: string, query?: Query) => api<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body?: unknown, headers?: Record<string, string>) => api<T>('POST', path, body, headers);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

interface SessionAnswer {
  user: SessionUser | null;
  csrf_token: string | null;
  registration_mode: SessionState['registrationMode'];
  operator_token_sign_in: boolean;
  base_url: string;
}

export async function loadSession(): Promise<void> {
  const s = await get<SessionAnswer>('/session');
  session.set({
    loaded: true,
    user: s.user,
    csrf: s.csrf_token,
    registrationMode: s.registration_mode,
    operatorTokenSignIn: s.operator_token_sign_in,
    baseUrl: s.base_url,
  });
}

/** After sign-in, sign-up or a password change: the answer carries the user and a fresh CSRF token. */
export function signedIn(answer: { user?: SessionUser; csrf_token: string }): void {
  const current = session.get();
  session.set({ ...current, user: answer.user ?? current.user, csrf: answer.csrf_token });
}

export function signedOut(): void {
  session.set({ ...session.get(), user: null, csrf: null });
}
