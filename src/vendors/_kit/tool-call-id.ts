import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Some vendors need state back on the next turn that OpenAI-shaped clients never return: a thought
 * signature on a function call, thinking blocks before a tool use. The one
 * thing every client returns unchanged is the tool-call id, so the state rides inside it:
 * `mgx_` + base64url(deflate(JSON {id, …state})). Stateless, so it survives restarts and works
 * across instances (a server-side cache would not). Ids stay within `[A-Za-z0-9_-]`, which every
 * vendor accepts for tool ids. Ids without state are left as the vendor sent them.
 */
const PREFIX = 'mgx_';
/** a forged id must not inflate into something huge */
const MAX_STATE_BYTES = 4 * 1024 * 1024;

export function packToolCallId(id: string, state: Record<string, unknown>): string {
  const json = JSON.stringify({ ...state, id });
  return PREFIX + deflateRawSync(Buffer.from(json, 'utf8')).toString('base64url');
}

/** The vendor's own id and the state packed with it (null for an ordinary id). */
export function unpackToolCallId(packed: string): { id: string; state: Record<string, unknown> | null } {
  if (!packed.startsWith(PREFIX)) return { id: packed, state: null };
  try {
    const json = inflateRawSync(Buffer.from(packed.slice(PREFIX.length), 'base64url'), { maxOutputLength: MAX_STATE_BYTES }).toString('utf8');
    const state = JSON.parse(json) as unknown;
    if (typeof state === 'object' && state !== null && typeof (state as { id?: unknown }).id === 'string') {
      const { id, ...rest } = state as { id: string } & Record<string, unknown>;
      return { id, state: rest };
    }
  } catch {
    // not one of ours after all: an ordinary id that happens to start with the prefix
  }
  return { id: packed, state: null };
}
