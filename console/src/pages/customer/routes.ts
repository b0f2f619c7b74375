import type { Route } from '../types.ts';
import { Billing } from './Billing.tsx';
import { Keys } from './Keys.tsx';
import { Models } from './Models.tsx';
import { Overview } from './Overview.tsx';
import { Settings } from './Settings.tsx';
import { Usage } from '../shared/Usage.tsx';

export const CUSTOMER_ROUTES: Route[] = [
  { pattern: '/', page: Overview },
  { pattern: '/keys', page: Keys },
  { pattern: '/usage', page: Usage },
  { pattern: '/billing', page: Billing },
  { pattern: '/models', page: Models },
  { pattern: '/settings', page: Settings },
];
