// Types the realtime files share. They live apart from the code so that the handshake, the
// billing, the record, the session and the registry meet here instead of importing each other.
import type { Principal } from '../auth/key-store.ts';
import type { Nano } from '../core/money.ts';

/** Who holds a session and on which model: the handshake fixes it, billing and the record read it. */
export interface SessionIdentity {
  /** the handshake's x-request-id */
  requestId: string;
  sessionId: string;
  principal: Principal;
  /** the public model id */
  model: string;
  providerId: string | null;
}

/** One direction of the relay (see Pipe), for tests and metrics. */
export interface PipeStats {
  peakBuffered: number;
  pauses: number;
  frames: number;
}

export interface SessionStats {
  toClient: PipeStats;
  toUpstream: PipeStats;
  responses: number;
  chargedNano: Nano;
}

/** A live session as the registry sees it: pinged, checked, ended at shutdown. */
export interface LiveSession {
  readonly id: string;
  readonly keyId: string;
  readonly stats: SessionStats;
  /** resolves once both sockets are closed */
  readonly closed: Promise<void>;
  tick(now: number): void;
  checkCredentials(now: number): void;
  /** ends the session (1001); resolves once its usage is billed */
  shutdown(): Promise<void>;
  terminateClient(): void;
}

