// From a valid-shaped body to a broken one: a wrong type at a typed field, a hostile value anywhere,
// a dropped or added nested object, a model of the wrong kind or shape, raw text no parser should
// choke on, odd headers. Each case says what was done and, where one field is at fault, which.
import fc from 'fast-check';
import type { Body, Dialect, FuzzRequest, Principal } from './request.ts';
import { hostileLeaf, hostileValue, jsonTypeOf } from './values.ts';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';
type Segment = string | number;

export interface ValidBody {
  body: Record<string, unknown>;
  tokenPriced?: FuzzRequest['tokenPriced'];
  /** the path, when it depends on the body (`:predict` names its model there) */
  path?: string;
}

export interface RouteSpec {
  route: string;
  method: string;
  path: string;
  dialect: Dialect;
  valid: fc.Arbitrary<ValidBody>;
  /** fields whose wrong type must be refused with a 4xx naming them: client path → accepted types */
  typed: Record<string, readonly JsonType[]>;
  /** models of another kind than the route serves */
  wrongModels?: readonly string[];
  /**
   * the route checks the model's kind itself (media routes): a wrong kind must be refused naming
   * `model`. The text routes leave that to the vendor (the simulators accept any model), so there a
   * wrong kind only has to be answered without a 5xx, in the envelope.
   */
  kindChecked?: true;
  /** whole bodies of the right outline with a part the converters read broken (content parts, tool calls…) */
  shapes?: fc.Arbitrary<{ body: Record<string, unknown>; mutation: string }>;
  /** who sends the valid requests (default: `exact` when token-priced, else `broken`) */
  principal?: Principal;
  /** headers every request of the route carries */
  headers?: Record<string, string>;
  /** a valid request may still be refused (a duplicate name, an unknown code): 2xx is not required */
  validMayFail?: true;
}

/** `messages[0].content` → ['messages', 0, 'content'] */
export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  for (const part of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(part[2] !== undefined ? Number(part[2]) : part[1]!);
  return out;
}

export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

/** Every path in `value` down to `maxDepth`, the root excluded. */
function pathsOf(value: unknown, maxDepth = 6, prefix: Segment[] = [], out: Segment[][] = []): Segment[][] {
  if (prefix.length >= maxDepth || value === null || typeof value !== 'object') return out;
  const entries: Array<[Segment, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const path = [...prefix, key];
    out.push(path);
    pathsOf(child, maxDepth, path, out);
  }
  return out;
}

/** A copy of `root` with `value` at `path` (undefined: removed). Missing parents are created as objects. */
function withValue(root: Record<string, unknown>, path: readonly Segment[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  let node: any = copy;
  for (const segment of path.slice(0, -1)) {
    if (node[segment] === null || typeof node[segment] !== 'object') node[segment] = {};
    node = node[segment];
  }
  const last = path.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

function accepts(types: readonly JsonType[], value: unknown): boolean {
  const type = jsonTypeOf(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

const MODEL_SHAPES: ReadonlyArray<{ value: unknown; label: string }> = [
  { value: ['gpt-4o-mini'], label: 'an array' },
  { value: { id: 'gpt-4o-mini' }, label: 'an object' },
  { value: 'm'.repeat(4096), label: 'a 4 KiB string' },
  { value: 42, label: 'a number' },
  { value: '', label: 'empty' },
];

/** Raw texts a JSON body parser must refuse or survive. */
function rawBodies(valid: Record<string, unknown>): fc.Arbitrary<{ body: Body; mutation: string }> {
  const text = JSON.stringify(valid);
  return fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((cut) => ({ body: { kind: 'text', text: text.slice(0, cut), contentType: 'application/json' } as Body, mutation: `truncated JSON at ${cut}` })),
    fc.record({ depth: fc.oneof(fc.integer({ min: 10, max: 5_000 }), fc.constantFrom(100_000, 200_000)), bracket: fc.constantFrom('[' as const, '{"a":' as const), where: fc.constantFrom('root', 'messages', 'field') }).map(({ depth, bracket, where }) => {
      const model = JSON.stringify(valid.model ?? 'gpt-4o-mini');
      const [prefix, suffix] = where === 'root' ? ['', ''] : where === 'messages' ? [`{"model":${model},"max_tokens":5,"messages":`, '}'] : [`${text.slice(0, -1)},"extra":`, '}'];
      return { body: { kind: 'deep', depth, bracket, prefix, suffix } as Body, mutation: `${depth} levels of ${bracket === '[' ? 'arrays' : 'objects'} at ${where}` };
    }),
    fc.constantFrom('[]', '1', 'null', '"text"', 'true', '{}', '', ' ', '\u0000', '{"model":', '{"a":1}{"b":2}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}').map((t) => ({ body: { kind: 'text', text: t, contentType: 'application/json' } as Body, mutation: `raw JSON ${JSON.stringify(t)}` })),
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/xml', 'multipart/form-data').map((contentType) => ({ body: { kind: 'text', text, contentType } as Body, mutation: `content-type ${contentType}` })),
    fc.constant({ body: { kind: 'text', text: `{"model":["x"],${text.slice(1)}`, contentType: 'application/json' } as Body, mutation: 'duplicate model key, the array first' }),
  );
}

const hostileHeaders: fc.Arbitrary<{ headers: Record<string, string>; mutation: string }> = fc.oneof(
  fc.constantFrom<Record<string, string>>(
    { 'anthropic-version': 'x'.repeat(2000) },
    { 'anthropic-beta': Array.from({ length: 200 }, (_, i) => `beta-${i}`).join(',') },
    { 'x-request-id': 'r'.repeat(4000) },
    { 'x-request-id': '\t' },
    { 'openai-organization': '\u00ff\u00fe' },
    { accept: 'text/event-stream' },
    { 'accept-encoding': 'br, gzip, deflate, zstd, *;q=0' },
    { 'x-stainless-retry-count': '-1' },
    { 'idempotency-key': 'k'.repeat(1000) },
  ).map((headers) => ({ headers, mutation: `header ${Object.keys(headers)[0]}` })),
);

/**
 * Every case of one route: about a quarter fully valid, the rest broken one way or another. The
 * valid ones go to the route's principal; broken ones to the `broken` account.
 */
export function routeCases(spec: RouteSpec): fc.Arbitrary<FuzzRequest> {
  const typedPaths = Object.keys(spec.typed);
  return spec.valid.chain((valid) => {
    const base = (body: Body, mutation: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({
      route: `${spec.method} ${spec.path}`,
      method: spec.method,
      path: valid.path ?? spec.path,
      dialect: spec.dialect,
      principal: spec.principal ?? 'broken',
      ...(spec.headers && { headers: spec.headers }),
      body,
      mutation,
      ...extra,
    });
    const json = (value: unknown): Body => ({ kind: 'json', value });
    const paths = pathsOf(valid.body);
    const options: Array<{ arbitrary: fc.Arbitrary<FuzzRequest>; weight: number }> = [
      {
        weight: 6,
        arbitrary: fc.constant(
          base(json(valid.body), 'none (valid)', {
            valid: !spec.validMayFail,
            principal: spec.principal ?? (valid.tokenPriced ? 'exact' : 'broken'),
            ...(valid.tokenPriced && { tokenPriced: valid.tokenPriced }),
          }),
        ),
      },
      {
        weight: 3,
        arbitrary: fc.oneof(
          fc.constantFrom(...paths.map(formatPath), 'extra_field'),
          fc.constantFrom(...paths.map(formatPath)).map((p) => `${p}.nested`),
        ).chain((path) => hostileValue.map((value) => base(json(withValue(valid.body, parsePath(path), value)), `hostile value at ${path}`))),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...paths).map((path) => base(json(withValue(valid.body, path, undefined)), `dropped ${formatPath(path)}`)),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom<Segment[]>([], ...paths.filter((p) => typeof p.at(-1) === 'string')), fc.constantFrom({ deeper: { still: { and: [{ more: {} }] } } }, [], null, {}))
          .map(([path, extra]) => base(json(withValue(valid.body, [...path, 'unexpected'], extra)), `added an unexpected nested value under ${formatPath(path) || 'the root'}`)),
      },
      { weight: 2, arbitrary: rawBodies(valid.body).map(({ body, mutation }) => base(body, mutation)) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom('none' as const, 'wrong-key' as const).map((principal) => base(json(valid.body), `credentials: ${principal}`, { principal })),
          hostileHeaders.map(({ headers, mutation }) => base(json(valid.body), mutation, { headers: { ...spec.headers, ...headers } })),
        ),
      },
    ];
    if (typedPaths.length > 0) {
      options.push({
        weight: 4,
        arbitrary: fc.constantFrom(...typedPaths).chain((path) =>
          hostileLeaf
            .filter((value) => !accepts(spec.typed[path]!, value))
            .map((value) => base(json(withValue(valid.body, parsePath(path), value)), `wrong type at ${path}`, { fault: path })),
        ),
      });
    }
    if (spec.wrongModels && 'model' in valid.body) {
      const shapes = MODEL_SHAPES.map(({ value, label }) => base(json({ ...valid.body, model: value }), `model is ${label}`, { fault: 'model' }));
      const kinds = spec.wrongModels.map((model) => base(json({ ...valid.body, model }), `model of the wrong kind: ${model}`, spec.kindChecked ? { fault: 'model' } : {}));
      const unknown = base(json({ ...valid.body, model: 'no-such-model-anywhere' }), 'unknown model');
      options.push({ weight: 2, arbitrary: fc.constantFrom(...shapes, ...kinds, unknown) });
    }
    if (spec.shapes) options.push({ weight: 4, arbitrary: spec.shapes.map(({ body, mutation }) => base(json(body), mutation)) });
    return fc.oneof(...options);
  });
}
