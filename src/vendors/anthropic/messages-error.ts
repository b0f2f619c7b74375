import type { GatewayError } from '../../core/errors.ts';
import { sseNamed } from '../../core/sse.ts';

/** The in-band error of a messages stream (protocols.md §3.5); same envelope as the error bodies. */
export function messagesErrorEvent(error: GatewayError): string {
  return sseNamed('error', JSON.stringify({ type: 'error', error: { type: error.type, message: error.message } }));
}
