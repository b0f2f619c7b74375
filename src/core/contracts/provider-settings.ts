/** A provider's optional settings (the admin API's `settings` object), as stored. */
export interface ProviderSettings {
  connect_timeout_ms?: number;
  first_byte_timeout_ms?: number;
  idle_timeout_ms?: number;
  max_connections?: number;
  /** which realtime interface generation the provider's server speaks (default "ga") */
  realtime_api?: 'ga' | 'beta';
  /** the provider's server answers `POST /responses`: Responses API requests may be relayed to it as they came */
  responses_api?: boolean;
  /** marks providers created by demo mode, so a restart can find and re-point them */
  demo?: boolean;
  /** the scheduled health check: off for this provider, or another GET path than the family's */
  health_check?: { enabled?: boolean; path?: string };
}
