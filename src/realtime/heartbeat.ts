import { WebSocket } from 'ws';

/** Liveness of one socket: pinged each round; one that did not answer the previous ping is cut. */
export class Heartbeat {
  private readonly socket: WebSocket;
  private alive = true;

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('pong', () => (this.alive = true));
  }

  /** One round; false when the socket had not answered and was cut. */
  beat(): boolean {
    // a socket in its close handshake is not pinged (ws throws on a socket that is not open)
    if (this.socket.readyState !== WebSocket.OPEN) return true;
    if (!this.alive) {
      this.socket.terminate();
      return false;
    }
    this.alive = false;
    this.socket.ping();
    return true;
  }
}
