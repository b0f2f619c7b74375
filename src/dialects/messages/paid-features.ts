import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { paidServiceTier, requireLongContextPrice, requireToolPrice, type PaidEstimate } from '../../core/paid-features.ts';
import { invalidRequest } from '../../core/errors.ts';

/** Betas that change what the API accepts or returns, not what it costs (the tokens pay for it). */
const FREE_BETA_PREFIXES: readonly string[] = [
  'prompt-caching-',
  'token-efficient-tools-',
  'interleaved-thinking-',
  'output-128k-',
  'fine-grained-tool-streaming-',
  'computer-use-',
  'files-api-',
  'pdfs-',
  'token-counting-',
  'context-management-',
  'web-fetch-',
  'web-search-',
  'search-results-',
  'mcp-client-',
  'code-execution-',
  'model-context-window-exceeded-',
  'structured-outputs-',
  'effort-',
];

/** The long-context beta: prompts past the standard window, at the long-context prices. */
const LONG_CONTEXT_BETA_PREFIX = 'context-1m-';

/** Vendor tools that cost only their tokens (the client runs these; web fetch has no per-call price). */
const FREE_TOOL_PREFIXES: readonly string[] = ['bash_', 'text_editor_', 'computer_', 'memory_', 'web_fetch_'];

/** Web searches reserved for (and sent as `max_uses`) when a web search tool sets no limit. */
export const DEFAULT_MAX_SEARCHES = 5;

/**
 * The native request's features that cost more than its tokens, each refused with a 400 naming
 * it unless the model prices it: server tools billed per call (`tools[i].type`, by the name
 * before the version date: `web_search_20250305` → `web_search`), a paid `service_tier`, the
 * long-context beta; a beta flag the gateway does not know is refused too. A web search tool
 * without `max_uses` gets the reserved number, so the vendor cannot search past the hold.
 */
export function paidMessagesFeatures(body: Record<string, unknown>, beta: string | undefined, model: CatalogueModel): PaidEstimate | undefined {
  let paid: PaidEstimate | undefined;
  const tier = paidServiceTier(model, body.service_tier, 'service_tier');
  if (tier !== undefined) (paid ??= {}).serviceTier = tier;
  if (Array.isArray(body.tools)) {
    let tools = body.tools as Array<Record<string, unknown>>;
    tools.forEach((tool, i) => {
      const type = tool.type;
      if (typeof type !== 'string' || type === 'custom' || FREE_TOOL_PREFIXES.some((p) => type.startsWith(p))) return;
      const name = type.replace(/_\d{8}$/, '');
      requireToolPrice(model, name, `tools[${i}].type`);
      let uses = tool.max_uses;
      if (name === 'web_search' && uses === undefined) {
        uses = DEFAULT_MAX_SEARCHES;
        if (tools === body.tools) tools = [...tools];
        tools[i] = { ...tool, max_uses: uses };
      }
      const calls = typeof uses === 'number' && Number.isInteger(uses) && uses > 0 ? uses : DEFAULT_MAX_SEARCHES;
      const toolCalls = ((paid ??= {}).toolCalls ??= {});
      toolCalls[name] = (toolCalls[name] ?? 0) + calls;
    });
    if (tools !== body.tools) body.tools = tools;
  }
  for (const flag of beta ? beta.split(',') : []) {
    const name = flag.trim();
    if (name === '' || FREE_BETA_PREFIXES.some((p) => name.startsWith(p))) continue;
    if (name.startsWith(LONG_CONTEXT_BETA_PREFIX)) {
      requireLongContextPrice(model, 'anthropic-beta', `the long-context beta "${name}"`);
      (paid ??= {}).longContext = true;
      continue;
    }
    throw invalidRequest(`anthropic-beta: "${name.slice(0, 100)}" is not a beta the gateway passes on (it may switch on a feature it cannot price).`, 'anthropic-beta');
  }
  return paid;
}
