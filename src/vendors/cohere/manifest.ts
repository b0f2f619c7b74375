import type { VendorManifest } from '../../core/contracts/provider-adapter.ts';

/** The Cohere wire family: rerank (v2). Prices: per search (one query over up to 100 documents). */
export const cohereManifest: VendorManifest = {
  family: 'cohere',
  displayName: 'Cohere',
  defaultBaseUrl: 'https://api.cohere.com',
  envVar: 'COHERE_API_KEY',
  auth: 'bearer',
  ownedBy: 'cohere',
  models: [
    { id: 'rerank-v3.5', kind: 'rerank', pricing: { per_request: 0.002 } },
    { id: 'rerank-english-v3.0', kind: 'rerank', pricing: { per_request: 0.002 } },
    { id: 'rerank-multilingual-v3.0', kind: 'rerank', pricing: { per_request: 0.002 } },
  ],
};
