import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Static } from 'typebox';
import { ModelPutSchema, ProviderCreateSchema } from '../admin/schemas.ts';

/**
 * The YAML file (MODELGATE_CONFIG): providers, models and prices, applied idempotently at
 * start (upsert by name), plus non-secret settings. Secrets stay in the environment and are
 * referenced as `${VAR}`.
 */
const SettingsSchema = {
  type: 'object',
  properties: {
    port: { type: 'integer' },
    host: { type: 'string' },
    public_base_url: { type: 'string' },
    demo: { anyOf: [{ type: 'string', const: 'auto' }, { type: 'string', const: 'off' }] },
    log_level: { type: 'string' },
    max_body_bytes: { type: 'integer' },
    default_max_output_tokens: { type: 'integer' },
    connect_timeout_ms: { type: 'integer' },
    first_byte_timeout_ms: { type: 'integer' },
    idle_timeout_ms: { type: 'integer' },
    max_attempts: { type: 'integer' },
    upstream_connections: { type: 'integer' },
    breaker_cooldown_ms: { type: 'integer' },
    sync_interval_ms: { type: 'integer' },
    shutdown_grace_ms: { type: 'integer' },
    media_dir: { type: 'string' },
    upload_dir: { type: 'string' },
    max_upload_bytes: { type: 'integer' },
    max_upload_total_bytes: { type: 'integer' },
    media_link_ttl_s: { type: 'integer' },
    media_timeout_ms: { type: 'integer' },
    job_poll_ms: { type: 'integer' },
    job_timeout_ms: { type: 'integer' },
    job_lease_ms: { type: 'integer' },
    realtime_max_sessions_per_key: { type: 'integer' },
    realtime_max_session_ms: { type: 'integer' },
    realtime_max_frame_bytes: { type: 'integer' },
    realtime_idle_timeout_ms: { type: 'integer' },
    realtime_ping_interval_ms: { type: 'integer' },
    realtime_max_buffered_bytes: { type: 'integer' },
  },
  additionalProperties: false,
} as const;

// plain JSON Schema, as the admin API's: typebox's `Type` builder would load its 373 modules at every start (env.ts imports this file)
const YamlSchema = {
  type: 'object',
  properties: {
    settings: SettingsSchema,
    providers: { type: 'array', items: ProviderCreateSchema },
    models: { type: 'object', patternProperties: { '^.*$': ModelPutSchema } },
  },
  additionalProperties: false,
} as const;

export type YamlConfig = Static<typeof YamlSchema>;

export function readYamlSettings(path: string, env: Record<string, string | undefined> = process.env): YamlConfig {
  const text = readFileSync(path, 'utf8');
  // the YAML parser (~70 modules) only when there is a file to read, not at every start-up
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const raw: unknown = interpolate(parse(text), env, path);
  // typebox's value checker (~300 modules beyond its schema builder) likewise
  const { Value } = createRequire(import.meta.url)('typebox/value') as typeof import('typebox/value');
  if (!Value.Check(YamlSchema, raw)) {
    const problems = Value.Errors(YamlSchema, raw)
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${path} is not a valid modelgate config: ${problems.join('; ')}`);
  }
  return raw;
}

/** Replaces `${VAR}` in every string with the environment's value; a missing variable is an error. */
function interpolate(value: unknown, env: Record<string, string | undefined>, path: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)\}/gi, (_, name: string) => {
      const found = env[name];
      if (found === undefined) throw new Error(`${path} refers to \${${name}}, which is not set in the environment`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, path));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, path)]));
  }
  return value;
}
