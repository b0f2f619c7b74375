// The admin API as the benchmarks use it to set up a gateway: one JSON call, failing loudly.

/** The token every benchmark gives its gateway (`MODELGATE_ADMIN_TOKEN`). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token';

/** POSTs to `/admin<path>` of the gateway at `origin` with a JSON body and returns its JSON answer. */
export async function adminCall<T>(origin: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${origin}/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /admin${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
