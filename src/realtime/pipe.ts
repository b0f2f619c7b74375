import { WebSocket } from 'ws';

/**
 * One direction of the relay with backpressure: frames are written to `to` as they come, and
 * when more than `maxBuffered` bytes wait in `to`'s send buffer the `from` socket is no longer
 * read (TCP flow control then slows the sender down) until the frames that crossed the mark are
 * flushed. The gateway thus holds at most about `maxBuffered` plus one read chunk per direction.
 */
export class Pipe {
  private readonly from: WebSocket;
  private readonly to: WebSocket;
  private readonly maxBuffered: number;
  private readonly onPause: (() => void) | undefined;
  private paused = false;
  /** frames sent while paused whose write has not completed */
  private waiting = 0;
  /** the largest send buffer seen towards `to` (tests and metrics) */
  peakBuffered = 0;
  /** how many times reading `from` was paused */
  pauses = 0;
  frames = 0;

  constructor(from: WebSocket, to: WebSocket, maxBuffered: number, onPause?: () => void) {
    this.from = from;
    this.to = to;
    this.maxBuffered = maxBuffered;
    this.onPause = onPause;
  }

  /** Writes one frame; false when `to` is no longer open (the frame is dropped). */
  send(data: string | Buffer, binary: boolean): boolean {
    const to = this.to;
    if (to.readyState !== WebSocket.OPEN) return false;
    this.frames++;
    const size = typeof data === 'string' ? data.length : data.byteLength;
    if (this.paused || to.bufferedAmount + size > this.maxBuffered) {
      if (!this.paused) {
        this.paused = true;
        this.pauses++;
        this.from.pause();
        this.onPause?.();
      }
      this.waiting++;
      to.send(data, { binary }, this.flushed);
    } else {
      to.send(data, { binary });
    }
    const buffered = to.bufferedAmount;
    if (buffered > this.peakBuffered) this.peakBuffered = buffered;
    return true;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  private readonly flushed = (): void => {
    this.waiting--;
    if (!this.paused) return;
    // every frame queued before the last waiting one is out once its callback runs
    if (this.waiting === 0 || this.to.bufferedAmount <= this.maxBuffered / 2) {
      this.paused = false;
      if (this.from.readyState === WebSocket.OPEN) this.from.resume();
    }
  };
}
