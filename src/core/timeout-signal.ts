/**
 * A signal that aborts after `ms` with the reason `AbortSignal.timeout` gives (a DOMException named
 * TimeoutError), made by an AbortController as every client request's signal is. The signal of
 * `AbortSignal.timeout` has a shape of its own (an own property, a weak timer): the first few that
 * reached `UpstreamClient.send` — a health probe, a video job's poll — made V8 throw away the
 * optimised code of the whole request path (field types and prototype chains it had assumed), and
 * recompiling it took ~150–300 ms of CPU a time (`bench/jit-trace.ts`).
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
