import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Type, type Static } from 'typebox';
import { ModelPutSchema, ProviderCreateSchema } from '../admin/schemas.ts';

/**
 * The YAML file (MODELGATE_CONFIG): providers, models and prices, applied idempotently at
 * start (upsert by name), plus non-secret settings. Secrets stay in the environment and are
 * referenced as `${VAR}`.
 */
const SettingsSchema = Type.Object(
  {
    port: Type.Optional(Type.Integer()),
    host: Type.Optional(Type.String()),
    public_base_url: Type.Optional(Type.String()),
    demo: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('off')])),
    log_level: Type.Optional(Type.String()),
    max_body_bytes: Type.Optional(Type.Integer()),
    default_max_output_tokens: Type.Optional(Type.Integer()),
    connect_timeout_ms: Type.Optional(Type.Integer()),
    first_byte_timeout_ms: Type.Optional(Type.Integer()),
    idle_timeout_ms: Type.Optional(Type.Integer()),
    max_attempts: Type.Optional(Type.Integer()),
    upstream_connections: Type.Optional(Type.Integer()),
    breaker_cooldown_ms: Type.Optional(Type.Integer()),
    sync_interval_ms: Type.Optional(Type.Integer()),
    shutdown_grace_ms: Type.Optional(Type.Integer()),
    media_dir: Type.Optional(Type.String()),
    upload_dir: Type.Optional(Type.String()),
    max_upload_bytes: Type.Optional(Type.Integer()),
    max_upload_total_bytes: Type.Optional(Type.Integer()),
    media_link_ttl_s: Type.Optional(Type.Integer()),
    media_timeout_ms: Type.Optional(Type.Integer()),
    job_poll_ms: Type.Optional(Type.Integer()),
    job_timeout_ms: Type.Optional(Type.Integer()),
    job_lease_ms: Type.Optional(Type.Integer()),
    realtime_max_sessions_per_key: Type.Optional(Type.Integer()),
    realtime_max_session_ms: Type.Optional(Type.Integer()),
    realtime_max_frame_bytes: Type.Optional(Type.Integer()),
    realtime_idle_timeout_ms: Type.Optional(Type.Integer()),
    realtime_ping_interval_ms: Type.Optional(Type.Integer()),
    realtime_max_buffered_bytes: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

const YamlSchema = Type.Object(
  {
    settings: Type.Optional(SettingsSchema),
    providers: Type.Optional(Type.Array(ProviderCreateSchema)),
    models: Type.Optional(Type.Record(Type.String(), ModelPutSchema)),
  },
  { additionalProperties: false },
);

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
