import type { Hold } from '../billing/ledger.ts';
import type { SharedHold } from '../billing/shared-holds.ts';
import { costOf } from '../catalogue/pricing.ts';
import { GatewayError, insufficientQuota } from '../core/errors.ts';
import type { Nano } from '../core/money.ts';
import type { Gateway } from '../gateway.ts';
import type { ResponseEstimator } from './estimate.ts';
import { realtimeRequestId, recordRealtimeResponse, type SessionIdentity } from './record.ts';
import { readRealtimeUsage } from './usage.ts';
import { isObject, type Json } from './translate/shapes.ts';

interface Held {
  hold: Hold;
  shared: SharedHold | undefined;
  /** set when the cross-instance reservation was refused after the local one succeeded */
  refused: boolean;
}

interface Running {
  held: Held;
  startedAt: number;
}

/**
 * Money of one realtime session. A session always holds the estimate of its next response (the
 * "standing hold", taken at the handshake): whoever starts that response — the client with
 * `response.create` or the upstream's own turn detection — it is covered before it runs, so
 * concurrent sessions of one account cannot overspend. Each `response.done` is settled exactly
 * once as its own ledger entry `realtime:<session>:<response id>` and one usage row; then the
 * standing hold is taken again for the next response, and when the balance cannot cover it the
 * session must end (`quotaError`).
 */
export class SessionBilling {
  private readonly gateway: Gateway;
  private readonly identity: SessionIdentity;
  private readonly estimator: ResponseEstimator;
  private standing: Held | null = null;
  /** holds claimed by client response.create events whose response.created has not come yet */
  private readonly claimed: Array<{ eventId: string | null; held: Held }> = [];
  private readonly running = new Map<string, Running>();
  private readonly settled = new Set<string>();
  /** a reservation failed: the session ends as soon as no response runs */
  quotaError: GatewayError | null = null;
  chargedNano: Nano = 0;
  responses = 0;
  /** the session is ending: no standing hold is taken any more */
  private windingDown = false;
  /** called when a cross-instance reservation was refused after the fact */
  onQuotaError: (() => void) | undefined;

  constructor(gateway: Gateway, identity: SessionIdentity, estimator: ResponseEstimator) {
    this.gateway = gateway;
    this.identity = identity;
    this.estimator = estimator;
  }

  /** At the handshake: the first standing hold, on this instance and across instances. Throws 402. */
  async open(): Promise<void> {
    const held = this.reserveLocal();
    const shared = this.gateway.sharedHolds;
    if (shared) {
      try {
        held.shared = await shared.acquire(this.identity.principal.accountId, held.hold.amount, this.balance());
      } catch (error) {
        this.gateway.ledger.release(held.hold);
        throw error;
      }
    }
    this.standing = held;
  }

  /** responses started and not yet done, or asked for and not yet started */
  get busy(): boolean {
    return this.running.size > 0 || this.claimed.length > 0;
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** The client asks for a response: the standing hold covers it, else one is reserved now. null = refused. */
  onResponseCreate(eventId: string | null): GatewayError | null {
    let held = this.standing;
    this.standing = null;
    if (!held) {
      try {
        held = this.reserve();
      } catch (error) {
        return this.refusal(error);
      }
    }
    this.claimed.push({ eventId, held });
    return null;
  }

  /** The upstream refused a client event: a response.create it refused frees its hold. */
  onUpstreamError(event: Json): void {
    const error = isObject(event.error) ? event.error : {};
    const eventId = typeof error.event_id === 'string' ? error.event_id : null;
    if (eventId === null) return;
    const at = this.claimed.findIndex((c) => c.eventId === eventId);
    if (at < 0) return;
    const [claim] = this.claimed.splice(at, 1);
    if (claim && !this.standing) this.standing = claim.held;
    else if (claim) this.release(claim.held);
  }

  /**
   * A response started upstream. It takes the oldest client claim, else the standing hold, else
   * a fresh reservation; when even that is refused the response still gets billed (its cost is
   * incurred upstream) and the returned error tells the session to cancel it and end.
   */
  onResponseCreated(id: string): GatewayError | null {
    if (this.running.has(id) || this.settled.has(id)) return null;
    let held = this.claimed.shift()?.held ?? this.standing;
    if (held === this.standing) this.standing = null;
    let refusal: GatewayError | null = null;
    if (!held) {
      try {
        held = this.reserve();
      } catch (error) {
        refusal = this.refusal(error);
        held = { hold: this.gateway.ledger.holdIncurred(this.identity.principal.accountId, this.identity.principal.key.id), shared: undefined, refused: false };
      }
    }
    this.running.set(id, { held, startedAt: Date.now() });
    return refusal;
  }

  /**
   * A response ended: charge its reported usage once, record it, and take the standing hold for
   * the next response. Returns the error that must end the session, if any.
   */
  onResponseDone(response: Json): GatewayError | null {
    const id = typeof response.id === 'string' ? response.id : '';
    if (this.settled.has(id)) return null;
    this.settled.add(id);
    let run = this.running.get(id);
    this.running.delete(id);
    if (!run) {
      // a response.done without response.created: bill it all the same
      const held = this.claimed.shift()?.held ?? this.standing;
      if (held === this.standing) this.standing = null;
      run = { held: held ?? { hold: this.gateway.ledger.holdIncurred(this.identity.principal.accountId, this.identity.principal.key.id), shared: undefined, refused: false }, startedAt: Date.now() };
    }
    const usage = readRealtimeUsage(response);
    const cost = usage ? costOf(this.gateway.catalogue.get(this.identity.model).pricing, usage) : 0;
    this.gateway.ledger.settle(run.held.hold, cost, { entryKey: `realtime:${this.identity.sessionId}:${id}`, requestId: realtimeRequestId(this.identity.requestId, id) });
    this.gateway.sharedHolds?.release(run.held.shared);
    if (cost > 0) this.chargedNano += cost;
    this.responses++;
    recordRealtimeResponse(this.gateway, this.identity, { id, status: typeof response.status === 'string' ? response.status : 'completed', startedAt: run.startedAt }, usage, cost);
    if (usage) this.estimator.noteResponseDone(usage.inputTokens, usage.outputTokens);
    if (run.held.refused && !this.quotaError) this.quotaError = insufficientQuota('Insufficient balance: sessions on other gateway instances already reserve it. Top up to continue.');
    return this.rearm();
  }

  /** Takes the standing hold again once nothing runs; the error says the session must end. */
  rearm(): GatewayError | null {
    if (this.windingDown) return null;
    if (this.quotaError) return this.busy ? null : this.quotaError;
    if (this.standing || this.busy) return null;
    try {
      this.standing = this.reserve();
    } catch (error) {
      this.quotaError = this.refusal(error);
      return this.quotaError;
    }
    return null;
  }

  /** The session is ending: responses still running are billed when done, nothing new is reserved. */
  windDown(): void {
    this.windingDown = true;
    if (this.standing) this.release(this.standing);
    this.standing = null;
  }

  /** The session is over: everything not settled is released (an upstream that failed mid-response is not charged). */
  close(): number {
    let unsettled = 0;
    if (this.standing) this.release(this.standing);
    this.standing = null;
    for (const claim of this.claimed.splice(0)) this.release(claim.held);
    for (const run of this.running.values()) {
      unsettled++;
      this.release(run.held);
    }
    this.running.clear();
    return unsettled;
  }

  private reserve(): Held {
    const held = this.reserveLocal();
    const shared = this.gateway.sharedHolds;
    if (shared) {
      // off the frame path: a refusal from the other instances ends the session once it is idle
      shared.acquire(this.identity.principal.accountId, held.hold.amount, this.balance()).then(
        (acquired) => {
          if (held.hold.open) held.shared = acquired;
          else shared.release(acquired);
        },
        () => {
          held.refused = true;
          if (this.standing === held) {
            this.standing = null;
            this.gateway.ledger.release(held.hold);
          }
          this.quotaError ??= insufficientQuota('Insufficient balance: sessions on other gateway instances already reserve it. Top up to continue.');
          this.onQuotaError?.();
        },
      );
    }
    return held;
  }

  private reserveLocal(): Held {
    const amount = this.estimator.nextResponse(this.gateway.catalogue.get(this.identity.model).pricing);
    const hold = this.gateway.ledger.reserve(this.identity.principal.accountId, this.identity.principal.key, amount);
    return { hold, shared: undefined, refused: false };
  }

  private release(held: Held): void {
    this.gateway.ledger.release(held.hold);
    this.gateway.sharedHolds?.release(held.shared);
  }

  private balance(): Nano {
    return this.gateway.ledger.balance(this.identity.principal.accountId) ?? 0;
  }

  private refusal(error: unknown): GatewayError {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
