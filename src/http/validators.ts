import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** The schemas are the gateway's own: checking each against the JSON Schema meta-schema only cost start-up time. */
const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: false, allowUnionTypes: true, strict: false, validateSchema: false };

/**
 * Bodies are validated as sent — never coerced or filled with defaults — because the body the
 * gateway forwards must be the body it received. Query strings and path parameters arrive as
 * text, so their validator coerces ("limit=10" → 10).
 *
 * Each route's schema is compiled when the route is first used, not when it is registered:
 * compiling every route's schemas took a second of start-up, most of them for rare routes.
 */
export function validatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  let body: Ajv | undefined;
  let text: Ajv | undefined;
  const ajvFor = (httpPart: string | undefined): Ajv =>
    httpPart === 'body'
      ? (body ??= addFormats.default(new Ajv({ ...shared, coerceTypes: false })))
      : (text ??= addFormats.default(new Ajv({ ...shared, coerceTypes: true })));
  return ({ schema, httpPart }) => {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown): boolean => {
      compiled ??= ajvFor(httpPart).compile(schema as object);
      const valid = compiled(data) as boolean;
      validate.errors = compiled.errors;
      return valid;
    };
    validate.errors = undefined as ValidateFunction['errors'];
    return validate as ReturnType<FastifySchemaCompiler<FastifySchema>>;
  };
}
