import type { HealthProbe } from '../../core/contracts/provider-adapter.ts';
import { PINNED_VERSION } from './manifest.ts';

/** `GET /v1/models`: free and authenticated; the vendor refuses any request without a version header. */
export const anthropicHealthProbe: HealthProbe = { path: '/models', headers: { 'anthropic-version': PINNED_VERSION } };
