import type { ProviderRecord } from '../store/repositories/providers.ts';
import { adapterFor, providerBaseUrl } from '../vendors/registry.ts';
import type { ProviderAdapter } from '../core/contracts/provider-adapter.ts';
import { authHeaders } from './auth-headers.ts';
import { CircuitBreaker, type BreakerOptions } from './circuit-breaker.ts';
import type { Timeouts, UpstreamTarget } from './upstream-client.ts';

export type OperationName = keyof ProviderAdapter['operations'];

export interface ProviderRuntime {
  record: ProviderRecord;
  adapter: ProviderAdapter;
  breaker: CircuitBreaker;
  upstream: UpstreamTarget;
  /** a JSON request's headers with the provider's credential, made once per provider (shared: never modified) */
  jsonHeaders: Readonly<Record<string, string>>;
}

export interface Candidate {
  provider: ProviderRuntime;
  upstreamModel: string;
}

export interface RouterOptions {
  timeouts: Timeouts;
  breaker: BreakerOptions;
  maxConnections: number;
  /** called when a provider's pool must be dropped (base URL changed, provider removed) */
  onProviderGone?: (providerId: string) => void;
}

/** The providers of one model at one priority, each with the id it knows the model by. */
type PriorityGroup = Candidate[];

/**
 * Which providers serve a model, in the order to try them: highest priority first, weighted
 * random among equals. Providers whose family lacks the operation are never candidates.
 */
export class Router {
  private readonly providers = new Map<string, ProviderRuntime>();
  /** model → its providers' candidates grouped by priority, highest first (rebuilt on every change) */
  private byModel = new Map<string, PriorityGroup[]>();
  /** model + operation → the groups whose family can serve it, computed once per routing table */
  private byOperation = new Map<string, PriorityGroup[]>();
  private readonly options: RouterOptions;
  private readonly random: () => number;

  constructor(options: RouterOptions, random: () => number = Math.random) {
    this.options = options;
    this.random = random;
  }

  apply(record: ProviderRecord): void {
    const previous = this.providers.get(record.id);
    const adapter = adapterFor(record.type);
    if (record.deleted || !adapter) {
      if (previous) {
        this.providers.delete(record.id);
        this.options.onProviderGone?.(record.id);
      }
    } else {
      const s = record.settings;
      // rows saved before base URLs were normalised heal as they load
      const baseUrl = providerBaseUrl(record.type, record.baseUrl);
      this.providers.set(record.id, {
        record: { ...record, baseUrl },
        adapter,
        // health survives edits of the same provider
        breaker: previous?.breaker ?? new CircuitBreaker(this.options.breaker),
        jsonHeaders: Object.freeze({ 'content-type': 'application/json', ...authHeaders(adapter.manifest.auth, record.apiKey) }),
        upstream: {
          poolKey: record.id,
          baseUrl,
          maxConnections: s.max_connections ?? this.options.maxConnections,
          timeouts: {
            connectMs: s.connect_timeout_ms ?? this.options.timeouts.connectMs,
            firstByteMs: s.first_byte_timeout_ms ?? this.options.timeouts.firstByteMs,
            idleMs: s.idle_timeout_ms ?? this.options.timeouts.idleMs,
          },
        },
      });
    }
    this.reindex();
  }

  get(providerId: string): ProviderRuntime | undefined {
    return this.providers.get(providerId);
  }

  all(): ProviderRuntime[] {
    return [...this.providers.values()];
  }

  /** Does any enabled provider serve this model (for any operation)? */
  serves(model: string): boolean {
    return this.byModel.has(model);
  }

  servedModels(): string[] {
    return [...this.byModel.keys()];
  }

  /**
   * `via`: an operation whose codec can serve `operation` through a bridge (the messages format
   * through chat): providers whose family has either one are candidates. This runs on every
   * request: the filtering and grouping are cached per routing table, only the shuffle is not.
   */
  candidates(model: string, operation: OperationName, via?: OperationName): Candidate[] {
    const cacheKey = via === undefined ? `${operation}\u0000${model}` : `${operation}\u0000${via}\u0000${model}`;
    let groups = this.byOperation.get(cacheKey);
    if (groups === undefined) {
      const serving = this.byModel.get(model);
      // unknown models are not cached: clients choose the names
      if (!serving) return [];
      const able = (c: Candidate) => c.provider.adapter.operations[operation] !== undefined || (via !== undefined && c.provider.adapter.operations[via] !== undefined);
      groups = serving.map((group) => group.filter(able)).filter((group) => group.length > 0);
      this.byOperation.set(cacheKey, groups);
    }
    // one provider: the cached array itself (callers only read it)
    if (groups.length === 1 && groups[0]!.length === 1) return groups[0]!;
    const ordered: Candidate[] = [];
    for (const group of groups) for (const candidate of this.weightedShuffle(group)) ordered.push(candidate);
    return ordered;
  }

  /** Efraimidis–Spirakis: sort by random^(1/weight), a weighted random permutation in one pass. */
  private weightedShuffle(group: Candidate[]): Candidate[] {
    if (group.length < 2) return group;
    return group
      .map((c) => ({ c, k: Math.pow(this.random(), 1 / Math.max(c.provider.record.weight, 1e-9)) }))
      .sort((a, b) => b.k - a.k)
      .map((x) => x.c);
  }

  private reindex(): void {
    const byModel = new Map<string, Candidate[]>();
    for (const provider of this.providers.values()) {
      if (!provider.record.enabled) continue;
      const renamed = new Map(Object.entries(provider.record.modelMap));
      for (const model of provider.record.models) {
        const candidate: Candidate = { provider, upstreamModel: renamed.get(model) ?? model };
        const list = byModel.get(model);
        if (list) list.push(candidate);
        else byModel.set(model, [candidate]);
      }
    }
    const grouped = new Map<string, PriorityGroup[]>();
    for (const [model, list] of byModel) {
      const priorities = [...new Set(list.map((c) => c.provider.record.priority))].sort((a, b) => b - a);
      grouped.set(model, priorities.map((priority) => list.filter((c) => c.provider.record.priority === priority)));
    }
    this.byModel = grouped;
    this.byOperation = new Map();
  }
}
