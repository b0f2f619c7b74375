import type { FunctionComponent } from 'preact';
import type { SessionUser } from '../lib/api.ts';

export interface PageProps {
  user: SessionUser;
  path: string;
  params: Record<string, string>;
}

export interface Route {
  pattern: string;
  page: FunctionComponent<PageProps>;
}
