import type { IncomingMessage } from 'node:http';
import type { RealtimeGeneration } from '../../core/contracts/realtime-codec.ts';

// The OpenAI dialect's realtime handshake: where the client's key is, which interface generation
// it speaks, and which subprotocol to answer with.

/** Browsers cannot set headers: they pass the key as a subprotocol (protocols.md §2.9). */
const KEY_PROTOCOL = 'openai-insecure-api-key.';
const BETA_PROTOCOL = 'openai-beta.realtime-v1';

export interface HandshakeCredentials {
  key: string | undefined;
  generation: RealtimeGeneration;
}

export function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (!header) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * The client's key (`Authorization: Bearer`, else the subprotocol form) and the interface
 * generation it speaks (beta when it sends `OpenAI-Beta: realtime=v1` or the beta subprotocol).
 */
export function readCredentials(req: IncomingMessage): HandshakeCredentials {
  const protocols = offeredProtocols(req);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const fromProtocol = protocols.find((p) => p.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length);
  const betaHeader = req.headers['openai-beta'];
  const beta = (typeof betaHeader === 'string' && /(^|[,\s])realtime=v1\b/.test(betaHeader)) || protocols.includes(BETA_PROTOCOL);
  return { key: bearer ?? (fromProtocol || undefined), generation: beta ? 'beta' : 'ga' };
}

/**
 * The subprotocol to answer with: `realtime` when offered, else another one the client offered,
 * never the key-carrying one — a handshake answer passes through proxies and their logs. When the
 * key subprotocol is the only one offered the answer names none (RFC 6455 allows it; browsers and
 * `ws` then fail the handshake, so such clients must offer `realtime` beside it, as the official
 * SDK does).
 */
export function chooseProtocol(offered: Set<string>): string | false {
  if (offered.has('realtime')) return 'realtime';
  for (const p of offered) if (!p.startsWith(KEY_PROTOCOL)) return p;
  return false;
}
