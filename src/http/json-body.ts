import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../core/errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../core/json-depth.ts';

/**
 * Replaces Fastify's JSON parser with the same parser (secure-json-parse: `__proto__` and
 * `constructor.prototype` keys refused) behind a depth check, so that a 100,000-level body is
 * refused after one cheap scan and never reaches code that recurses (validation, re-encoding,
 * the usage row). Body limits (413) are Fastify's, unchanged.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser<Buffer>('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    if (jsonDepthExceeds(bytes, MAX_JSON_DEPTH)) {
      done(invalidRequest(`The request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are allowed.`), undefined);
      return;
    }
    // secure-json-parse reads a Buffer as it reads the string Fastify's own parser hands it
    parse(request, bytes as unknown as string, done);
  });
}
