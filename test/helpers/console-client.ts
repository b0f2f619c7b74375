// A console API client as a browser would be: one cookie jar, the Origin header on writes and
// the session's CSRF token in x-csrf-token. Tests use it where no page is needed.
export interface ConsoleResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export class ConsoleClient {
  readonly origin: string;
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(origin: string) {
    this.origin = origin;
  }

  async call<T = any>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<ConsoleResponse<T>> {
    const headers: Record<string, string> = { ...extra };
    if (method !== 'GET' && method !== 'HEAD') {
      headers.origin ??= this.origin;
      if (this.csrf) headers['x-csrf-token'] ??= this.csrf;
    }
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    if (this.cookie) headers.cookie ??= this.cookie;
    const res = await fetch(this.origin + path, { method, headers, ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const value = /^mg_session=([^;]*)/.exec(setCookie)?.[1];
      this.cookie = value ? `mg_session=${value}` : undefined;
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    const out = { status: res.status, body: parsed as T, headers: res.headers, text };
    const token = (parsed as { csrf_token?: unknown } | null)?.csrf_token;
    if (typeof token === 'string') this.csrf = token;
    return out;
  }

  get<T = any>(path: string) {
    return this.call<T>('GET', path);
  }

  post<T = any>(path: string, body: unknown = {}) {
    return this.call<T>('POST', path, body);
  }

  async register(email: string, password = 'correct horse battery', extra: Record<string, unknown> = {}) {
    return this.post('/console/api/auth/register', { email, password, ...extra });
  }

  async login(email: string, password = 'correct horse battery') {
    return this.post('/console/api/auth/login', { email, password });
  }
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}@example.test`;
}
