import type { HealthProbe } from '../types.ts';

/** `GET /v1/models`: free, authenticated, served by every OpenAI-compatible server. */
export const openaiHealthProbe: HealthProbe = { path: '/models' };
