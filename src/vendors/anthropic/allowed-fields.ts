/**
 * The body fields the native messages pass-through forwards: free, or checked priced by the
 * messages decoder (`tools` with server tools, `service_tier`; the beta flags too, see
 * src/dialects/messages/paid-features.ts). Other top-level fields are dropped with a warning.
 */
export const MESSAGES_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'output_format',
  'context_management',
  'mcp_servers',
  'container',
  // checked by the messages decoder: "auto" and "standard_only" cost the standard price
  'service_tier',
]);
