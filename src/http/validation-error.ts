import { invalidRequest, type GatewayError } from '../core/errors.ts';

/** The subset of Ajv's error object that Fastify hands to the error handler. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/messages/0/role` → `messages[0].role`, the way clients name fields. */
export function paramOf(error: SchemaError): string {
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') parts.push(error.params.missingProperty);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

/**
 * One clear message for the first problem: the field and the rule. Union branches produce one
 * error each; a specific rule (maximum, maxItems…) beats "wrong type" when both are reported.
 */
export function fromSchemaErrors(errors: SchemaError[]): GatewayError {
  const first = errors.find((e) => !['type', 'anyOf', 'oneOf'].includes(e.keyword)) ?? errors[0];
  if (!first) return invalidRequest('The request body is invalid.');
  const param = paramOf(first);
  const subject = param || 'the request body';
  const p = first.params;
  switch (first.keyword) {
    case 'required':
      return invalidRequest(`Missing required parameter: '${param}'.`, param);
    case 'type': {
      const types = errors.filter((e) => e.keyword === 'type' && e.instancePath === first.instancePath).map((e) => String(e.params.type));
      return invalidRequest(`Invalid type for '${subject}': expected ${[...new Set(types.join(',').split(','))].join(' or ')}.`, param);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalidRequest(`Invalid value for '${subject}': must be ${String(p.comparison)} ${String(p.limit)}.`, param);
    case 'maxItems':
      return invalidRequest(`Invalid value for '${subject}': at most ${String(p.limit)} items are allowed.`, param);
    case 'minItems':
      return invalidRequest(`Invalid value for '${subject}': at least ${String(p.limit)} item${p.limit === 1 ? ' is' : 's are'} required.`, param);
    case 'minLength':
      return invalidRequest(`Invalid value for '${subject}': must not be empty.`, param);
    case 'maxLength':
      return invalidRequest(`Invalid value for '${subject}': at most ${String(p.limit)} characters are allowed.`, param);
    case 'enum':
      return invalidRequest(`Invalid value for '${subject}': must be one of ${(p.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(', ')}.`, param);
    case 'additionalProperties':
      return invalidRequest(`Unknown parameter: '${[param, String(p.additionalProperty)].filter(Boolean).join('.')}'.`, [param, String(p.additionalProperty)].filter(Boolean).join('.'));
    default:
      return invalidRequest(`Invalid value for '${subject}': ${first.message ?? 'not allowed'}.`, param);
  }
}
