import { WebSocket } from 'ws';
import type { SessionBilling } from './billing.ts';
import { CLOSE, closeReason, newEventId } from './frames.ts';

/** how long a session that is ending waits for its cancelled responses' usage */
const DRAIN_GRACE_MS = 5_000;

/**
 * The upstream end of a session once it is open: cancelling responses, and closing — at once, or
 * once the usage of the responses still running has come (or the grace ran out). Its close event
 * is reported exactly once, also for a socket that was already closed when asked to close.
 */
export class UpstreamLink {
  readonly socket: WebSocket;
  /** the socket's close was reported */
  closed = false;
  /** the socket's last error: it tells how the upstream went away */
  error: Error | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly onClose: (code: number, reason: Buffer) => void;

  constructor(socket: WebSocket, onClose: (code: number, reason: Buffer) => void) {
    this.socket = socket;
    this.onClose = onClose;
    socket.on('close', this.closedWith);
    socket.on('error', (error) => (this.error = error));
  }

  cancel(responseId: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: 'response.cancel', event_id: newEventId(), response_id: responseId }));
  }

  /** Cancels the running responses and closes once their usage arrived (or the grace ran out). */
  drain(billing: Pick<SessionBilling, 'runningIds' | 'busy'>, why: string): void {
    if (this.socket.readyState !== WebSocket.OPEN) return this.close(why);
    // the client is gone or going: keep reading the upstream for the usage still to come
    this.socket.resume();
    for (const id of billing.runningIds()) this.cancel(id);
    if (!billing.busy) return this.close(why);
    this.drainTimer = setTimeout(() => this.close(why), DRAIN_GRACE_MS);
    this.drainTimer.unref();
  }

  close(why: string): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const state = this.socket.readyState;
    if (state === WebSocket.OPEN) this.socket.close(CLOSE.normal, closeReason(why));
    else if (state === WebSocket.CONNECTING) this.socket.terminate();
    else if (state === WebSocket.CLOSED && !this.closed) this.closedWith(1006, Buffer.alloc(0));
  }

  private readonly closedWith = (code: number, reason: Buffer): void => {
    this.closed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.onClose(code, reason);
  };
}
