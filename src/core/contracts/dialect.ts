import type { OpenOutputCap } from './open-output-cap.ts';
import type { CatalogueModel } from './catalogue-model.ts';
import type { ErrorDialect } from './error-dialect.ts';
import type { ProviderAdapter } from './provider-adapter.ts';
import type { OffLoopCounter } from './token-counter.ts';
import type { ChatOutput } from '../ir/output.ts';
import type { PaidEstimate } from '../paid-features.ts';
import type { Meter } from '../pricing.ts';
import type { TextCounter } from '../tokens/token-counter.ts';
import type { StoredRefs, StoredResponses } from './stored-responses.ts';

/**
 * A client dialect: one wire format the gateway speaks to clients (OpenAI, messages, Google).
 * It is data and pure functions: its routes say what they decode to, and the HTTP layer runs
 * every route the same way (authentication, admission, the key's model allowlist, counting,
 * then the pipeline). Nothing in a dialect knows a vendor, the pipeline or the store; the list
 * of dialects is src/dialects/registry.ts.
 */
export interface Dialect {
  name: string;
  /** its error envelope, and the paths it claims — also before any route matched (404, a malformed path) */
  errors: ErrorDialect;
  /** where a client puts its API key, in the order they are tried */
  keys: readonly KeyPlace[];
  /** its routes that are a plain decode → pipeline; routes needing I/O of their own stay in src/http/routes */
  routes: readonly DialectRoute[];
}

/** `Authorization: Bearer`, the `x-api-key` or `x-goog-api-key` header, or the `?key=` query parameter. */
export type KeyPlace = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query-key';

export type DialectOperation = keyof ProviderAdapter['operations'];

/**
 * One `POST` route (every operation is one; a listing or a job's state is hand-written in
 * src/http/routes). `path` is the public path and the endpoint of logs and usage rows; a path
 * ending in `{model}:verb` names the model in the path (`/v1beta/models/{model}:predict`), and
 * the verbs of one prefix share a route. Method syntax: a route typed by its own body still
 * fits the list.
 */
export interface DialectRoute<Body = unknown> {
  path: string;
  /** the JSON Schema of the body, checked before anything else (400 naming the field) */
  schema: object;
  /** the JSON Schema of the query string, if it has one (its values are coerced from text: "n=2" → 2) */
  query?: object;
  operation: DialectOperation;
  /**
   * What is refused before the body is decoded, so nothing is counted for a model the key may not
   * use: 'allowlist' the key's model list, 'served' also that some provider serves the model.
   * Without it the decoder's own 400s come first and the allowlist is checked on the decoded model.
   */
  precheck?: 'allowlist' | 'served';
  /** the decoder counts texts with `ctx.count`: a large body's texts are counted off the event loop first (the decoder then runs once to collect them) */
  countsTexts?: boolean;
  /** a media answer: the upstream gets the media timeout for its first byte */
  media?: boolean;
  /** where no provider offers `operation` for the model (a provider still serving it), the gateway counts the prompt itself, free */
  countLocally?: LocalCount<Body>;
  /** the route reads and keeps stored responses: the responses and items its request refers to, loaded (with their chains) into `DecodeContext.stored` */
  storedRefs?(input: RouteInput<Body>): StoredRefs;
  /** the model the request names (the allowlist and the catalogue look at it) */
  model(input: RouteInput<Body>): string;
  decode(input: RouteInput<Body>, ctx: DecodeContext): Decoded<unknown>;
}

export interface LocalCount<Body> {
  /** counted by the gateway even where a provider offers the operation (no family's native count reads the dialect's wire) */
  always?: boolean;
  measure(body: Body, count: TextCounter): number;
  answer(tokens: number): unknown;
}

/** What a route's decoder sees of the request: pure data, no framework object. */
export interface RouteInput<Body> {
  /** the body as the route's schema let it through */
  body: Body;
  /** the query string, as its schema let it through (empty without one) */
  query: Readonly<Record<string, unknown>>;
  /** the `{model}` of a `…/{model}:verb` path */
  pathModel: string | undefined;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Content-Length; NaN when absent */
  bodyBytes: number;
  /** the key came as `Authorization: Bearer` (an OpenAI-style client), not in the dialect's own header */
  bearer: boolean;
}

/** What the HTTP layer hands a decoder beside the request. */
export interface DecodeContext {
  /** the catalogue's view of the model the request names (looked up on first read) */
  readonly model: CatalogueModel;
  /** the request's text counter: inline, or counts made off the event loop (`countsTexts`) */
  count: TextCounter;
  offLoop: Pick<OffLoopCounter, 'boundCounter'>;
  /** the output cap of a request that sets none */
  defaultMaxOutputTokens: number;
  /** the account's stored responses, for a route with `storedRefs` (absent where the gateway keeps none) */
  stored?: StoredResponses;
}

/** A request decoded by a dialect: what the route hands the pipeline beside the operation's name. */
export interface Decoded<Call> {
  model: string;
  call: Call;
  stream: boolean;
  /** see OperationRequest.estimate: `inputTokens` may be a lazy getter beside a cheap bound; `units` as the meter counts them */
  estimate: { inputTokens: number; outputTokens: number; units?: number; inputTokensUpperBound?: number; settle?: () => Promise<void> | undefined; paid?: PaidEstimate };
  openOutputCap?: OpenOutputCap;
  /** what `usage.units` counts and how it is priced; default: tokens only */
  meter?: Meter;
  /**
   * The client's chat encoder: the pipeline composes it with a family's chat codec (a chat
   * request), or serves the operation through a family's chat codec where it lacks the native one.
   */
  output?: ChatOutput;
  /** the answer's JSON body from the IR result, in the dialect's own shape (instead of the vendor codec's body) */
  answer?(result: never): string;
}
