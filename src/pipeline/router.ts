import type { ProviderRecord } from '../store/repositories/providers.ts';
import { adapterFor } from '../vendors/registry.ts';
import type { ProviderAdapter } from '../vendors/types.ts';
import { CircuitBreaker, type BreakerOptions } from './circuit-breaker.ts';
import type { Timeouts, UpstreamTarget } from './upstream-client.ts';

export type OperationName = keyof ProviderAdapter['operations'];

export interface ProviderRuntime {
  record: ProviderRecord;
  adapter: ProviderAdapter;
  breaker: CircuitBreaker;
  upstream: UpstreamTarget;
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

/**
 * Which providers serve a model, in the order to try them: highest priority first, weighted
 * random among equals. Providers whose family lacks the operation are never candidates.
 */
export class Router {
  private readonly providers = new Map<string, ProviderRuntime>();
  private byModel = new Map<string, ProviderRuntime[]>();
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
      this.providers.set(record.id, {
        record,
        adapter,
        // health survives edits of the same provider
        breaker: previous?.breaker ?? new CircuitBreaker(this.options.breaker),
        upstream: {
          poolKey: record.id,
          baseUrl: record.baseUrl,
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
   * through chat): providers whose family has either one are candidates.
   */
  candidates(model: string, operation: OperationName, via?: OperationName): Candidate[] {
    const serving = this.byModel.get(model);
    if (!serving) return [];
    const able = serving.filter((p) => p.adapter.operations[operation] !== undefined || (via !== undefined && p.adapter.operations[via] !== undefined));
    const ordered: Candidate[] = [];
    const priorities = [...new Set(able.map((p) => p.record.priority))].sort((a, b) => b - a);
    for (const priority of priorities) {
      for (const provider of this.weightedShuffle(able.filter((p) => p.record.priority === priority))) {
        ordered.push({ provider, upstreamModel: provider.record.modelMap[model] ?? model });
      }
    }
    return ordered;
  }

  /** Efraimidis–Spirakis: sort by random^(1/weight), a weighted random permutation in one pass. */
  private weightedShuffle(group: ProviderRuntime[]): ProviderRuntime[] {
    if (group.length < 2) return group;
    return group
      .map((p) => ({ p, k: Math.pow(this.random(), 1 / Math.max(p.record.weight, 1e-9)) }))
      .sort((a, b) => b.k - a.k)
      .map((x) => x.p);
  }

  private reindex(): void {
    const index = new Map<string, ProviderRuntime[]>();
    for (const provider of this.providers.values()) {
      if (!provider.record.enabled) continue;
      for (const model of provider.record.models) {
        const list = index.get(model);
        if (list) list.push(provider);
        else index.set(model, [provider]);
      }
    }
    this.byModel = index;
  }
}
