import type { Static } from 'typebox';

/**
 * Shapes of the admin API (contract §2), shared by the HTTP routes and the YAML config. Plain JSON
 * Schema `as const` (typebox infers their types): building them with typebox's `Type` at import
 * loaded its 373 modules at every start.
 */

const Usd = { type: 'number', minimum: 0, maximum: 1_000_000 } as const;

/** The token prices a service tier or long context replaces (unset: the standard price). */
const TokenPrices = {
  input_per_mtok: Usd,
  output_per_mtok: Usd,
  cached_input_per_mtok: Usd,
  cache_write_per_mtok: Usd,
  audio_input_per_mtok: Usd,
  audio_output_per_mtok: Usd,
} as const;
const TokenPricesSchema = { type: 'object', properties: TokenPrices, additionalProperties: false } as const;

export const PricingSchema = {
  type: 'object',
  properties: {
    input_per_mtok: Usd,
    output_per_mtok: Usd,
    cached_input_per_mtok: Usd,
    audio_input_per_mtok: Usd,
    cached_audio_input_per_mtok: Usd,
    audio_output_per_mtok: Usd,
    cache_write_per_mtok: Usd,
    per_image: {
      type: 'object',
      patternProperties: { '^(standard|hd|low|medium|high|auto|\\*)$': { type: 'object', patternProperties: { '^(\\d+x\\d+|auto|\\*)$': Usd } } },
    },
    per_second: Usd,
    per_mchar: Usd,
    per_request: Usd,
    // paid upstream features: priced here, or refused (src/catalogue/paid-features.ts)
    service_tiers: { type: 'object', patternProperties: { '^[a-z][a-z0-9_]{0,31}$': TokenPricesSchema }, maxProperties: 16 },
    per_tool_call: { type: 'object', patternProperties: { '^[a-z][a-z0-9_]{0,63}$': Usd }, maxProperties: 64 },
    long_context: {
      type: 'object',
      required: ['threshold_tokens'],
      properties: { threshold_tokens: { type: 'integer', minimum: 1, maximum: 2_147_483_647 }, ...TokenPrices },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const ModelId = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const ProviderSettingsSchema = {
  type: 'object',
  properties: {
    connect_timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000 },
    first_byte_timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    idle_timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    max_connections: { type: 'integer', minimum: 1, maximum: 65_536 },
    realtime_api: { anyOf: [{ type: 'string', const: 'ga' }, { type: 'string', const: 'beta' }] },
    responses_api: { type: 'boolean' },
    health_check: {
      type: 'object',
      properties: { enabled: { type: 'boolean' }, path: { type: 'string', minLength: 1, maxLength: 500, pattern: '^/' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const providerFields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  type: { type: 'string', minLength: 1, maxLength: 40 },
  base_url: { type: 'string', minLength: 1, maxLength: 2000, pattern: '^https?://' },
  api_key: { type: 'string', maxLength: 10_000 },
  models: { type: 'array', items: ModelId, maxItems: 10_000 },
  // any key (the name's bounds are not checked)
  model_map: { type: 'object', patternProperties: { '^.*$': ModelId } },
  priority: { type: 'integer', minimum: -1_000_000, maximum: 1_000_000 },
  weight: { type: 'integer', minimum: 0, maximum: 1_000_000 },
  enabled: { type: 'boolean' },
  settings: ProviderSettingsSchema,
} as const;

export const ProviderCreateSchema = {
  type: 'object',
  required: ['name', 'type', 'base_url', 'api_key', 'models'],
  properties: providerFields,
  additionalProperties: false,
} as const;
export type ProviderCreate = Static<typeof ProviderCreateSchema>;

/** Every field optional; an unknown field is refused by name (a typo must not be a silent no-op). */
export const ProviderPatchSchema = { type: 'object', properties: providerFields, additionalProperties: false } as const;
export type ProviderPatchBody = Static<typeof ProviderPatchSchema>;

/**
 * A capability's numbers reach holds and prices (`max_output_tokens`, `n_max`, `durations`…): each
 * one, at the top or in a list, is within what the money code holds; objects are free-form.
 */
const CapabilityNumber = { type: 'number', minimum: -2_147_483_647, maximum: 2_147_483_647 } as const;
const CapabilityScalar = { anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'boolean' }, { type: 'null' }, CapabilityNumber] } as const;
const CapabilityValue = {
  anyOf: [
    CapabilityScalar,
    { type: 'array', items: { anyOf: [CapabilityScalar, { type: 'array', items: CapabilityScalar, maxItems: 64 }] }, maxItems: 1000 },
    { type: 'object', patternProperties: { '^.*$': {} } },
  ],
} as const;

export const ModelPutSchema = {
  type: 'object',
  properties: {
    pricing: PricingSchema,
    // any key (the name's bounds are not checked)
    capabilities: { type: 'object', patternProperties: { '^.*$': CapabilityValue } },
  },
  additionalProperties: false,
} as const;
export type ModelPut = Static<typeof ModelPutSchema>;

export const AccountCreateSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    email: { anyOf: [{ type: 'string', maxLength: 320 }, { type: 'null' }] },
  },
  additionalProperties: false,
} as const;

/** A periodic budget (contract §4): at most `budget_usd` per UTC day, ISO week or calendar month; null: none. */
const budgetFields = {
  budget_usd: { anyOf: [{ type: 'number', minimum: 0, maximum: 1_000_000 }, { type: 'null' }] },
  budget_period: { anyOf: [{ type: 'string', const: 'day' }, { type: 'string', const: 'week' }, { type: 'string', const: 'month' }] },
} as const;
export type BudgetFields = { budget_usd?: number | null; budget_period?: 'day' | 'week' | 'month' };

export const AccountPatchSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    email: { anyOf: [{ type: 'string', maxLength: 320 }, { type: 'null' }] },
    disabled: { type: 'boolean' },
    ...budgetFields,
  },
  additionalProperties: false,
} as const;

export const CreditSchema = {
  type: 'object',
  required: ['amount_usd'],
  properties: {
    amount_usd: { type: 'number', minimum: -1_000_000, maximum: 1_000_000 },
    note: { type: 'string', maxLength: 1000 },
  },
  additionalProperties: false,
} as const;

const keyFields = {
  name: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
  expires_at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
  models: { anyOf: [{ type: 'array', items: ModelId, maxItems: 10_000 }, { type: 'null' }] },
  rpm: { anyOf: [{ type: 'integer', minimum: 1, maximum: 100_000_000 }, { type: 'null' }] },
  tpm: { anyOf: [{ type: 'integer', minimum: 1, maximum: 10_000_000_000 }, { type: 'null' }] },
  max_spend_usd: { anyOf: [{ type: 'number', minimum: 0, maximum: 1_000_000 }, { type: 'null' }] },
  ...budgetFields,
} as const;

export const KeyCreateSchema = { type: 'object', properties: keyFields, additionalProperties: false } as const;
export type KeyCreate = Static<typeof KeyCreateSchema>;

export const KeyPatchSchema = { type: 'object', properties: { ...keyFields, disabled: { type: 'boolean' } }, additionalProperties: false } as const;
export type KeyPatch = Static<typeof KeyPatchSchema>;

export const UsageQuerySchema = {
  type: 'object',
  properties: {
    account_id: { type: 'string', maxLength: 100 },
    key_id: { type: 'string', maxLength: 100 },
    model: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    before: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
  additionalProperties: false,
} as const;
export type UsageQueryParams = Static<typeof UsageQuerySchema>;
