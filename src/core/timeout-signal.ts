/**
 * A signal that aborts after `ms` with the reason `AbortSignal.timeout` gives (a DOMException named
 * TimeoutError), made by an AbortController as every client request's signal is. The signal of
 * `AbortSignal.timeout` has an own property more (a second shape): in `--trace-deopt` traces of a
 * loaded gateway, a provider's first health probes through `UpstreamClient.send` made V8 drop the
 * optimised code of the request path (field types and prototype chains it had assumed: attempt,
 * answer, runOperation, undici's Request) and compile it again, ~150–300 ms of CPU.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
