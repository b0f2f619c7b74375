import type { HealthProbe } from '../../core/contracts/provider-adapter.ts';

/** `GET /v1/models`: free, authenticated, served by every OpenAI-compatible server. */
export const openaiHealthProbe: HealthProbe = { path: '/models' };
