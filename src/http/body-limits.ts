import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../core/errors.ts';

/**
 * Request bodies per route: `/v1` takes MODELGATE_MAX_BODY_BYTES (prompts, images, batches); the
 * console and admin APIs take settings and small forms, and a console request from someone not
 * signed in (sign-in, sign-up, operator token, or anything an anonymous client tries) far less.
 */
export const CONSOLE_BODY_BYTES = 1024 * 1024;
export const ADMIN_BODY_BYTES = 1024 * 1024;
export const PRE_SIGN_IN_BODY_BYTES = 64 * 1024;

/** Routes registered in `scope` after this call take bodies up to `bytes` (unless they set their own). */
export function limitBodies(scope: FastifyInstance, bytes: number): void {
  scope.addHook('onRoute', (route) => {
    route.bodyLimit ??= bytes;
  });
}

const tooLarge = (bytes: number, when: string) =>
  new GatewayError({ status: 413, type: 'invalid_request_error', message: `The request body is too large: at most ${bytes} bytes ${when}.`, code: 'request_too_large' });

/**
 * A preParsing hook holding the bodies of requests `applies` picks to `bytes`: refused at once when
 * the declared length is over, else counted as they arrive (chunked bodies declare none).
 */
export function capBodiesWhen(bytes: number, when: string, applies: (request: FastifyRequest) => boolean) {
  return async (request: FastifyRequest, _reply: FastifyReply, payload: Readable): Promise<Readable> => {
    if (!applies(request)) return payload;
    const declared = request.headers['content-length'];
    if (declared !== undefined) {
      // Fastify refuses a body longer than its declared length
      if (Number(declared) > bytes) throw tooLarge(bytes, when);
      return payload;
    }
    // no length and not chunked: no body at all
    if (request.headers['transfer-encoding'] === undefined) return payload;
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
          seen += chunk.length;
          callback(seen > bytes ? tooLarge(bytes, when) : null, chunk);
        },
      }),
    );
  };
}
