import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { GatewayError, invalidRequest, serverError } from '../core/errors.ts';
import { errorDialectFor } from './error-envelope.ts';
import { fromSchemaErrors, type SchemaError } from './validation-error.ts';

/** Turns anything thrown by a route into the right status and the dialect's envelope. */
export function toGatewayError(error: FastifyError | Error): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return fromSchemaErrors(fastifyError.validation as unknown as SchemaError[]);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError({ status: 413, type: 'invalid_request_error', message: 'The request body is too large.', code: 'request_too_large' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError({ status: 415, type: 'invalid_request_error', message: 'Unsupported Content-Type: send JSON with "Content-Type: application/json".', code: 'unsupported_media_type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequest('The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError) return invalidRequest('The request body is not valid JSON.');
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new GatewayError({ status: fastifyError.statusCode, type: 'invalid_request_error', message: fastifyError.message });
  }
  return serverError();
}

/** Only the log: an unexpected error is written there before the client gets its envelope. */
export interface ErrorHandlerDeps {
  log: Pick<Logger, 'error'>;
}

export function errorHandler(deps: ErrorHandlerDeps) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500 && !(error instanceof GatewayError)) {
      // the client quotes its x-request-id (its own, when it sent one): both ids find this line
      deps.log.error({ reqId: request.id, correlationId: request.correlationId, err: error, url: request.routeOptions.url }, 'unhandled error');
    }
    if (reply.sent || reply.raw.headersSent) return;
    if (gatewayError.retryAfter !== undefined) reply.header('retry-after', String(gatewayError.retryAfter));
    if (gatewayError.headers) reply.headers(gatewayError.headers);
    reply.code(gatewayError.status).send(errorDialectFor(request.url, request.headers).render(gatewayError));
  };
}
