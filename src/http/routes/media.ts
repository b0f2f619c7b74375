import type { FastifyInstance } from 'fastify';
import { GatewayError, notFound } from '../../core/errors.ts';
import type { SignedMediaDeps } from './deps.ts';

/** No schema: a repeated query parameter arrives as an array. */
type MediaRoute = { Params: { file: string }; Querystring: { expires?: string | string[]; sig?: string | string[] } };

/**
 * Signed links to media the gateway serves itself (`/media/<id>[.ext]?expires=…&sig=…`). No API
 * key: the signature is the credential. A tampered link is 403, a genuine one past its hour 410.
 */
export function registerMediaRoutes(app: FastifyInstance, deps: SignedMediaDeps): void {
  app.get<MediaRoute>('/media/:file', async (request, reply) => {
    const id = request.params.file.replace(/\.[a-z0-9]{1,5}$/i, '');
    const { expires, sig } = request.query;
    // a repeated parameter is no valid signature either
    const found = await deps.media.resolve(id, typeof expires === 'string' ? expires : undefined, typeof sig === 'string' ? sig : undefined);
    if (found === 'invalid') {
      throw new GatewayError({ status: 403, type: 'permission_error', message: 'This link is not valid: its signature does not match. Use the link exactly as it was given.', code: 'invalid_signature' });
    }
    if (found === 'expired') {
      throw new GatewayError({ status: 410, type: 'invalid_request_error', message: 'This link has expired (links are valid for one hour). Generate the media again.', code: 'link_expired' });
    }
    const opened = found === 'gone' ? undefined : await deps.media.open(found);
    if (found === 'gone' || !opened) throw notFound('The media behind this link no longer exists.', null, 'media_gone');
    reply
      .header('content-type', found.content_type)
      .header('content-length', String(opened.size))
      .header('cache-control', `private, max-age=${Math.max(0, Math.floor((found.expires_at - Date.now()) / 1000))}`);
    return reply.send(opened.stream);
  });
}
