import type { Hold } from '../billing/ledger.ts';
import { releaseHeld, settleHeld } from '../billing/settle-held.ts';
import type { SharedHold } from '../billing/shared-holds.ts';
import { costOf } from '../core/pricing.ts';
import { GatewayError, insufficientQuota } from '../core/errors.ts';
import { nanoToUsd, type Nano } from '../core/money.ts';
import type { RealtimeBillingDeps } from './deps.ts';
import { ResponseEstimator } from './estimate.ts';
import { realtimeUsageRow, recordRealtimeResponse } from './record.ts';
import type { SessionIdentity } from './types.ts';
import { readRealtimeUsage } from './usage.ts';
import { isObject, type Json } from './translate/shapes.ts';

/** The money set aside for one response: one or more ledger holds (the first takes the charge) and their shared counterparts. */
interface Held {
  holds: Hold[];
  shared: SharedHold[];
  /** set when a cross-instance reservation was refused after the local one succeeded */
  refused: boolean;
  /** the response does not join the conversation (`conversation: "none"`) */
  outOfBand: boolean;
}

interface Running {
  held: Held;
  startedAt: number;
}

/** A refused `response.create`: the error for the client, and whether the session must end. */
export interface Refusal {
  error: GatewayError;
  /** nothing is held at all (a response runs and the next one cannot be covered) */
  endsSession: boolean;
}

const amountOf = (held: Held): Nano => held.holds.reduce((sum, hold) => sum + hold.amount, 0);

/**
 * Money of one realtime session. A session always holds the estimate of its next response (the
 * "standing hold", taken at the handshake): whoever starts that response — the client with
 * `response.create` or the upstream's own turn detection — it is covered before it runs, so
 * concurrent sessions of one account cannot overspend. The hold follows the conversation: an item
 * or a `response.create` that makes the estimate grow tops it up first (an extra ledger hold, and
 * its shared counterpart), and is refused when the balance cannot cover that. Each `response.done`
 * is settled exactly once as its own ledger entry `realtime:<session>:<response id>` and one usage
 * row; then the standing hold is taken again for the next response, and when the balance cannot
 * cover it the session must end (`quotaError`).
 */
export class SessionBilling {
  private readonly deps: RealtimeBillingDeps;
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

  constructor(deps: RealtimeBillingDeps, identity: SessionIdentity, estimator: ResponseEstimator) {
    this.deps = deps;
    this.identity = identity;
    this.estimator = estimator;
  }

  /** At the handshake: the first standing hold, on this instance and across instances. Throws 402. */
  async open(): Promise<void> {
    const hold = this.reserveLocal(this.estimator.nextResponse(this.pricing()));
    const held: Held = { holds: [hold], shared: [], refused: false, outOfBand: false };
    const shared = this.deps.sharedHolds;
    if (shared) {
      try {
        const acquired = await shared.acquire(this.identity.principal.accountId, hold.amount, this.balance());
        if (acquired) held.shared.push(acquired);
      } catch (error) {
        this.deps.ledger.release(hold);
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

  /**
   * The client adds a conversation item: the standing hold grows to cover it before it is
   * forwarded. Returns the error to answer (the item is then not forwarded) when the balance
   * cannot cover the conversation with it.
   */
  onItemCreate(item: unknown): GatewayError | null {
    const tokens = this.estimator.itemTokens(item);
    if (!this.windingDown && !this.quotaError) {
      const need = this.estimator.nextResponse(this.pricing(), tokens);
      try {
        if (this.standing) this.topUp(this.standing, need);
        // a response runs with the standing hold: the next one must still fit beside it
        else if (need > this.deps.ledger.headroom(this.identity.principal.accountId, this.identity.principal.key)) throw this.tooDear(need);
      } catch (error) {
        return this.refusal(error);
      }
    }
    this.estimator.noteItem(tokens);
    return null;
  }

  /**
   * The client asks for a response: the standing hold, topped up to what this response may cost
   * (its own input, instructions, output cap and modalities), covers it, else one is reserved now.
   * A refusal is not forwarded.
   */
  onResponseCreate(eventId: string | null, response: Json | undefined): Refusal | null {
    const need = this.estimator.forResponse(this.pricing(), response);
    let held = this.standing;
    try {
      if (held) this.topUp(held, need);
      else held = this.reserve(need);
    } catch (error) {
      // with the standing hold kept, the session can still run a response it can afford
      return { error: this.refusal(error), endsSession: held === null };
    }
    this.standing = null;
    held.outOfBand = ResponseEstimator.isOutOfBand(response);
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
    if (claim && !this.standing) {
      claim.held.outOfBand = false;
      this.standing = claim.held;
    } else if (claim) this.release(claim.held);
  }

  /**
   * A response started upstream. It takes the oldest client claim, else the standing hold (topped
   * up to the estimate when the balance allows: the upstream started it on its own, it runs
   * either way), else a fresh reservation; when even that is refused the response still gets
   * billed (its cost is incurred upstream) and the returned error tells the session to cancel it
   * and end.
   */
  onResponseCreated(id: string): GatewayError | null {
    if (this.running.has(id) || this.settled.has(id)) return null;
    let held = this.claimed.shift()?.held ?? null;
    if (!held && this.standing) {
      held = this.standing;
      this.standing = null;
      try {
        this.topUp(held, this.estimator.nextResponse(this.pricing()));
      } catch {
        // what the hold does not cover is the audio appended since it was sized: charged all the same
      }
    }
    let refusal: GatewayError | null = null;
    if (!held) {
      try {
        held = this.reserve(this.estimator.nextResponse(this.pricing()));
      } catch (error) {
        refusal = this.refusal(error);
        held = this.incurred();
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
      run = { held: held ?? this.incurred(), startedAt: Date.now() };
    }
    const usage = readRealtimeUsage(response);
    const cost = usage ? costOf(this.pricing(), usage) : 0;
    const done = { id, status: typeof response.status === 'string' ? response.status : 'completed', startedAt: run.startedAt };
    const row = realtimeUsageRow(this.identity, done, usage, cost, Date.now());
    // the charge on the first hold, top-ups released; the usage row is logged with the charge
    settleHeld(this.deps, run.held, { entryKey: `realtime:${this.identity.sessionId}:${id}`, requestId: row.request_id, costNano: cost, usage: () => row });
    if (cost > 0) this.chargedNano += cost;
    this.responses++;
    recordRealtimeResponse(this.deps, this.identity, done, usage, row);
    if (usage) this.estimator.noteResponseDone(usage.inputTokens, usage.outputTokens, run.held.outOfBand, (usage.audioInputTokens ?? 0) + (usage.audioOutputTokens ?? 0));
    if (run.held.refused && !this.quotaError) this.quotaError = insufficientQuota('Insufficient balance: sessions on other gateway instances already reserve it. Top up to continue.');
    return this.rearm();
  }

  /** Takes the standing hold again once nothing runs; the error says the session must end. */
  rearm(): GatewayError | null {
    if (this.windingDown) return null;
    if (this.quotaError) return this.busy ? null : this.quotaError;
    if (this.standing || this.busy) return null;
    try {
      this.standing = this.reserve(this.estimator.nextResponse(this.pricing()));
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

  private reserve(amount: Nano): Held {
    const held: Held = { holds: [], shared: [], refused: false, outOfBand: false };
    this.add(held, amount);
    return held;
  }

  /** Grows `held` to `amount` with one more hold (nothing when it holds that much already). Throws 402. */
  private topUp(held: Held, amount: Nano): void {
    const extra = amount - amountOf(held);
    if (extra > 0) this.add(held, extra);
  }

  /** One more ledger hold of `amount` in `held`, and its cross-instance counterpart. */
  private add(held: Held, amount: Nano): void {
    const hold = this.reserveLocal(amount);
    held.holds.push(hold);
    const shared = this.deps.sharedHolds;
    if (!shared) return;
    // off the frame path: a refusal from the other instances ends the session once it is idle
    shared.acquire(this.identity.principal.accountId, amount, this.balance()).then(
      (acquired) => {
        if (!acquired) return;
        if (hold.open) held.shared.push(acquired);
        else shared.release(acquired);
      },
      () => {
        held.refused = true;
        if (this.standing === held) {
          this.standing = null;
          this.release(held);
        }
        this.quotaError ??= insufficientQuota('Insufficient balance: sessions on other gateway instances already reserve it. Top up to continue.');
        this.onQuotaError?.();
      },
    );
  }

  private reserveLocal(amount: Nano): Hold {
    return this.deps.ledger.reserve(this.identity.principal.accountId, this.identity.principal.key, amount);
  }

  /** a hold of nothing, never refused: for a response the upstream runs whatever the gateway says */
  private incurred(): Held {
    return { holds: [this.deps.ledger.holdIncurred(this.identity.principal.accountId, this.identity.principal.key.id)], shared: [], refused: false, outOfBand: false };
  }

  private release(held: Held): void {
    releaseHeld(this.deps, held);
  }

  private pricing() {
    return this.deps.catalogue.get(this.identity.model).pricing;
  }

  private balance(): Nano {
    return this.deps.ledger.balance(this.identity.principal.accountId) ?? 0;
  }

  private tooDear(need: Nano): GatewayError {
    return insufficientQuota(`Insufficient balance: the conversation with this item may cost up to $${nanoToUsd(need).toFixed(4)} a response, more than is available. Top up to continue.`);
  }

  private refusal(error: unknown): GatewayError {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
