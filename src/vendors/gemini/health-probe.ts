import type { HealthProbe } from '../../core/contracts/provider-adapter.ts';

/** `GET /v1beta/models?pageSize=1`: free and authenticated; one model is enough to show the key works. */
export const geminiHealthProbe: HealthProbe = { path: '/models?pageSize=1' };
