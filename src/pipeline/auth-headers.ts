import type { AuthScheme } from '../core/contracts/provider-adapter.ts';

/** The upstream credential in the header the family expects. */
export function authHeaders(scheme: AuthScheme, apiKey: string): Record<string, string> {
  switch (scheme) {
    case 'bearer':
      return { authorization: `Bearer ${apiKey}` };
    case 'x-api-key':
      return { 'x-api-key': apiKey };
    case 'x-goog-api-key':
      return { 'x-goog-api-key': apiKey };
    default: {
      const unknown: never = scheme;
      throw new Error(`unknown auth scheme ${String(unknown)}`);
    }
  }
}
