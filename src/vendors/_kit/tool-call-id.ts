import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Some vendors need state back on the next turn that OpenAI-shaped clients never return: a thought
 * signature on a function call, thinking blocks before a tool use. The one
 * thing every client returns unchanged is the tool-call id, so the state rides inside it:
 * `mgx_` + tag + base64url(deflate(JSON {id, …state})). Stateless, so it survives restarts and
 * works across instances (a server-side cache would not). Ids stay within `[A-Za-z0-9_-]`, which
 * every vendor accepts for tool ids. Ids without state are left as the vendor sent them.
 *
 * The tag is HMAC-SHA256 of the payload under a key every instance shares (truncated to 128 bits):
 * an id the gateway did not issue is never inflated, so a client can neither inject vendor state
 * nor make the gateway inflate a zip bomb. It is just an opaque id, passed on as it is.
 */
const PREFIX = 'mgx_';
const TAG_BYTES = 16;
/** base64url length of the tag */
const TAG_CHARS = 22;
/** state one request may have restored from its ids in total; past it, ids are opaque */
export const MAX_STATE_BYTES_PER_REQUEST = 1024 * 1024;

/**
 * The signing key: set once at start (the gateway reads it from the environment or the database),
 * so the converters stay pure functions with no I/O of their own. Until then a random key of this
 * process, so ids still round-trip within it.
 */
let key: Buffer = randomBytes(32);

export function setToolCallIdKey(secret: string): void {
  key = Buffer.from(secret, 'utf8');
}

function tagOf(payload: string): string {
  return createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES).toString('base64url');
}

export function packToolCallId(id: string, state: Record<string, unknown>): string {
  const payload = deflateRawSync(Buffer.from(JSON.stringify({ ...state, id }), 'utf8')).toString('base64url');
  return PREFIX + tagOf(payload) + payload;
}

export interface UnpackedToolCallId {
  /** the vendor's own id; the id as given when it carries no (genuine) state */
  id: string;
  state: Record<string, unknown> | null;
}

/**
 * Reads the ids of one request. The state restored is counted against the request's budget each
 * time it is used (a genuine id repeated a thousand times would otherwise multiply it upstream);
 * an id past the budget is opaque. Each id is verified and inflated once.
 */
export class ToolCallIdReader {
  private remaining: number;
  private readonly seen = new Map<string, { unpacked: UnpackedToolCallId; bytes: number }>();

  constructor(budgetBytes = MAX_STATE_BYTES_PER_REQUEST) {
    this.remaining = budgetBytes;
  }

  /** The vendor's id and its state, counted against the budget. */
  read(packed: string): UnpackedToolCallId {
    if (!packed.startsWith(PREFIX)) return { id: packed, state: null };
    const entry = this.decoded(packed);
    if (entry.unpacked.state === null || entry.bytes > this.remaining) return { id: packed, state: null };
    this.remaining -= entry.bytes;
    return entry.unpacked;
  }

  /** The vendor's id alone, where its state is not sent again (nothing counted). */
  idOf(packed: string): string {
    return packed.startsWith(PREFIX) ? this.decoded(packed).unpacked.id : packed;
  }

  private decoded(packed: string): { unpacked: UnpackedToolCallId; bytes: number } {
    let entry = this.seen.get(packed);
    if (!entry) {
      entry = decode(packed);
      this.seen.set(packed, entry);
    }
    return entry;
  }
}

/** One id on its own (a request's ids go through one ToolCallIdReader). */
export function unpackToolCallId(packed: string): UnpackedToolCallId {
  return new ToolCallIdReader().read(packed);
}

const OPAQUE = (packed: string) => ({ unpacked: { id: packed, state: null }, bytes: 0 });

function decode(packed: string): { unpacked: UnpackedToolCallId; bytes: number } {
  const payload = packed.slice(PREFIX.length + TAG_CHARS);
  if (payload === '' || !genuine(packed.slice(PREFIX.length, PREFIX.length + TAG_CHARS), payload)) return OPAQUE(packed);
  try {
    const json = inflateRawSync(Buffer.from(payload, 'base64url'), { maxOutputLength: MAX_STATE_BYTES_PER_REQUEST });
    const state = JSON.parse(json.toString('utf8')) as unknown;
    if (typeof state === 'object' && state !== null && typeof (state as { id?: unknown }).id === 'string') {
      const { id, ...rest } = state as { id: string } & Record<string, unknown>;
      return { unpacked: { id, state: rest }, bytes: json.length };
    }
  } catch {
    // signed by us yet unreadable (another version's format): opaque
  }
  return OPAQUE(packed);
}

function genuine(tag: string, payload: string): boolean {
  const given = Buffer.from(tag, 'utf8');
  const expected = Buffer.from(tagOf(payload), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
