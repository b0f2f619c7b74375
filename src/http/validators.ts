import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';

const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: false, allowUnionTypes: true, strict: false };

/**
 * Bodies are validated as sent — never coerced or filled with defaults — because the body the
 * gateway forwards must be the body it received. Query strings and path parameters arrive as
 * text, so their validator coerces ("limit=10" → 10).
 */
export function validatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const body = addFormats.default(new Ajv({ ...shared, coerceTypes: false }));
  const text = addFormats.default(new Ajv({ ...shared, coerceTypes: true }));
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : text;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<FastifySchema>>;
  };
}
