import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../core/errors.ts';
import { STATUS_REASONS } from '../core/status-reasons.ts';
import { fallbackDialect } from '../dialects/registry.ts';
import { errorDialectFor } from './error-envelope.ts';

/**
 * Errors Fastify answers before any route or error handler runs, given the gateway's envelope
 * instead of Fastify's own `{"error", "statusCode"}` body (a client SDK reads `error.message`).
 */

/** A path Fastify cannot route (malformed percent-encoding, a parameter past its length). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const gatewayError = new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    message: error.code === 'FST_ERR_BAD_URL' ? 'The request path is not a valid URL: fix its percent-encoding.' : 'The request path is malformed.',
    code: 'invalid_path',
  });
  reply.code(400).send(errorDialectFor(request.url, request.headers).render(gatewayError));
}

/**
 * What Node's HTTP parser refuses (oversized headers, a timed-out or unparsable request): the
 * path is unknown here, so the answer is in the default (OpenAI) envelope, written on the socket as Node
 * and Fastify do by default, and the connection is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message, code] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time.', 'request_timeout']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request line and headers are too large (at most 16 KiB): send long values in the body.', 'headers_too_large']
        : [400, 'The request is not valid HTTP.', 'bad_request'];
  const body = JSON.stringify(
    fallbackDialect.errors.render(new GatewayError({ status, type: 'invalid_request_error', message, code })),
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_REASONS[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
