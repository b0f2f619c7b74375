import { Usage } from '../shared/Usage.tsx';
import type { Route } from '../types.ts';
import { AccountDetail } from './AccountDetail.tsx';
import { Accounts } from './Accounts.tsx';
import { Codes } from './Codes.tsx';
import { OperatorOverview } from './Overview.tsx';
import { Prices } from './Prices.tsx';
import { Providers } from './Providers.tsx';
import { OperatorSettings } from './Settings.tsx';

export const OPERATOR_ROUTES: Route[] = [
  { pattern: '/admin', page: OperatorOverview },
  { pattern: '/admin/providers', page: Providers },
  { pattern: '/admin/models', page: Prices },
  { pattern: '/admin/accounts', page: Accounts },
  { pattern: '/admin/accounts/:id', page: AccountDetail },
  { pattern: '/admin/codes', page: Codes },
  { pattern: '/admin/usage', page: Usage },
  { pattern: '/admin/settings', page: OperatorSettings },
];
