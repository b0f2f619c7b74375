import type { GatewayError } from '../../core/errors.ts';
import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

/** The messages envelope (contract §3): `{"type":"error","error":{"type","message"}}` with the gateway's error types. */
export function messagesErrorBody(error: GatewayError) {
  return { type: 'error', error: { type: error.type, message: error.message } };
}

/** The in-band error of a messages stream. */
export function encodeMessagesError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify(messagesErrorBody(error))}\n\n`;
}

/** Error answers on /v1/messages and /v1/messages/count_tokens. */
export const messagesErrorDialect: ErrorDialect = {
  name: 'messages',
  matches: (path) => path === '/v1/messages' || path.startsWith('/v1/messages/') || path.startsWith('/v1/messages?'),
  render: messagesErrorBody,
};
