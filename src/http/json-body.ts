import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../core/errors.ts';

/** Arrays and objects a JSON body may nest: far above any real request, far below a stack's reach. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest nesting of arrays and objects in JSON text, counting brackets outside strings, or
 * the first depth past `limit`: one pass over the bytes, stopping early. (UTF-8 continuation
 * bytes are never ASCII, so scanning bytes is exact.) Invalid JSON gives some number; the parser
 * that runs next refuses it anyway.
 */
export function jsonDepthExceeds(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * Replaces Fastify's JSON parser with the same parser (secure-json-parse: `__proto__` and
 * `constructor.prototype` keys refused) behind a depth check, so that a 100,000-level body is
 * refused after one cheap scan and never reaches code that recurses (validation, re-encoding,
 * the usage row). Body limits (413) are Fastify's, unchanged.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (jsonDepthExceeds(bytes, MAX_JSON_DEPTH)) {
      done(invalidRequest(`The request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are allowed.`), undefined);
      return;
    }
    parse(request, bytes as unknown as string, done);
  });
}
