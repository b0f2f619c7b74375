// One fuzzed HTTP request as data: small enough to print once shrunk, rendered to bytes only when sent.

/** Whose envelope a 4xx must come in (chosen by path, as the gateway does). */
export type Dialect = 'openai' | 'messages' | 'google';

/** Which credentials the request carries. */
export type Principal =
  | 'exact' // fully valid, token-priced requests: the account's drop must equal the price of the reported usage
  | 'failing' // the simulator is told to fail: never charged
  | 'broken' // everything else on the client routes
  | 'admin' // the admin token
  | 'console-customer'
  | 'console-operator'
  | 'none'
  | 'wrong-key';

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  /** text, or a named fixture (a short WAV, a PNG) */
  value: string | { fixture: 'wav' | 'png' | 'noise'; bytes?: number };
}

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  /** sent as is with the content type */
  | { kind: 'text'; text: string; contentType: string }
  /** `prefix` + `depth` opening brackets + 1 + closing brackets + `suffix`, as raw text: never a JS value */
  | { kind: 'deep'; depth: number; bracket: '[' | '{"a":'; prefix: string; suffix: string }
  | { kind: 'multipart'; parts: MultipartPart[]; breakage?: 'no-boundary' | 'no-closing' | 'wrong-boundary' | 'truncated' };

export interface FuzzRequest {
  /** the route's name in reports: `POST /v1/chat/completions` */
  route: string;
  method: string;
  path: string;
  dialect: Dialect;
  principal: Principal;
  headers?: Record<string, string>;
  body: Body;
  /** a fully valid request: must be answered 2xx */
  valid?: boolean;
  /** valid and priced by the tokens the answer reports (chat, completions, embeddings, messages) */
  tokenPriced?: { model: string; usage: 'openai' | 'embeddings' | 'messages'; stream: boolean };
  /** the one field at fault (the client's notation): the answer must be a 4xx naming it */
  fault?: string;
  /** the simulator was told to fail (a 5xx is allowed, nothing may be charged) */
  simFails?: boolean;
  /** what was done to the valid body, for the report */
  mutation: string;
}

/** A realtime session: a handshake with the key, then frames, then a normal close. */
export interface RealtimeScript {
  route: 'WS /v1/realtime';
  model: string;
  frames: Array<{ text: string } | { binary: number }>;
  mutation: string;
}

export type FuzzCase = FuzzRequest | RealtimeScript;

export const isRealtime = (c: FuzzCase): c is RealtimeScript => c.route === 'WS /v1/realtime';
