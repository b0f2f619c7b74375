import { Type, type Static } from 'typebox';

/** Shapes of the admin API (contract §2), shared by the HTTP routes and the YAML config. */

const Usd = Type.Number({ minimum: 0, maximum: 1_000_000 });

/** The token prices a service tier or long context replaces (unset: the standard price). */
const TokenPrices = {
  input_per_mtok: Type.Optional(Usd),
  output_per_mtok: Type.Optional(Usd),
  cached_input_per_mtok: Type.Optional(Usd),
  cache_write_per_mtok: Type.Optional(Usd),
  audio_input_per_mtok: Type.Optional(Usd),
  audio_output_per_mtok: Type.Optional(Usd),
};
const TokenPricesSchema = Type.Object(TokenPrices, { additionalProperties: false });

export const PricingSchema = Type.Object(
  {
    input_per_mtok: Type.Optional(Usd),
    output_per_mtok: Type.Optional(Usd),
    cached_input_per_mtok: Type.Optional(Usd),
    audio_input_per_mtok: Type.Optional(Usd),
    cached_audio_input_per_mtok: Type.Optional(Usd),
    audio_output_per_mtok: Type.Optional(Usd),
    cache_write_per_mtok: Type.Optional(Usd),
    per_image: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^(standard|hd|low|medium|high|auto|\\*)$' }),
        Type.Record(Type.String({ pattern: '^(\\d+x\\d+|auto|\\*)$' }), Usd),
      ),
    ),
    per_second: Type.Optional(Usd),
    per_mchar: Type.Optional(Usd),
    per_request: Type.Optional(Usd),
    // paid upstream features: priced here, or refused (src/catalogue/paid-features.ts)
    service_tiers: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,31}$' }), TokenPricesSchema, { maxProperties: 16 })),
    per_tool_call: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }), Usd, { maxProperties: 64 })),
    long_context: Type.Optional(Type.Object({ threshold_tokens: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), ...TokenPrices }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

const ModelId = Type.String({ minLength: 1, maxLength: 200 });

export const ProviderSettingsSchema = Type.Object(
  {
    connect_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
    first_byte_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    idle_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    max_connections: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_536 })),
    realtime_api: Type.Optional(Type.Union([Type.Literal('ga'), Type.Literal('beta')])),
    responses_api: Type.Optional(Type.Boolean()),
    health_check: Type.Optional(
      Type.Object(
        { enabled: Type.Optional(Type.Boolean()), path: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '^/' })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const providerFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ minLength: 1, maxLength: 40 }),
  base_url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://' }),
  api_key: Type.String({ maxLength: 10_000 }),
  models: Type.Array(ModelId, { maxItems: 10_000 }),
  model_map: Type.Optional(Type.Record(ModelId, ModelId)),
  priority: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
  weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  enabled: Type.Optional(Type.Boolean()),
  settings: Type.Optional(ProviderSettingsSchema),
};

export const ProviderCreateSchema = Type.Object(providerFields, { additionalProperties: false });
export type ProviderCreate = Static<typeof ProviderCreateSchema>;

export const ProviderPatchSchema = Type.Partial(Type.Object(providerFields, { additionalProperties: false }));
export type ProviderPatchBody = Static<typeof ProviderPatchSchema>;

/**
 * A capability's numbers reach holds and prices (`max_output_tokens`, `n_max`, `durations`…): each
 * one, at the top or in a list, is within what the money code holds; objects are free-form.
 */
const CapabilityNumber = Type.Number({ minimum: -2_147_483_647, maximum: 2_147_483_647 });
const CapabilityScalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Boolean(), Type.Null(), CapabilityNumber]);
const CapabilityValue = Type.Union([
  CapabilityScalar,
  Type.Array(Type.Union([CapabilityScalar, Type.Array(CapabilityScalar, { maxItems: 64 })]), { maxItems: 1000 }),
  Type.Record(Type.String(), Type.Unknown()),
]);

export const ModelPutSchema = Type.Object(
  {
    pricing: Type.Optional(PricingSchema),
    capabilities: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), CapabilityValue)),
  },
  { additionalProperties: false },
);
export type ModelPut = Static<typeof ModelPutSchema>;

export const AccountCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** A periodic budget (contract §4): at most `budget_usd` per UTC day, ISO week or calendar month; null: none. */
const budgetFields = {
  budget_usd: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1_000_000 }), Type.Null()])),
  budget_period: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')])),
};
export type BudgetFields = { budget_usd?: number | null; budget_period?: 'day' | 'week' | 'month' };

export const AccountPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
    disabled: Type.Optional(Type.Boolean()),
    ...budgetFields,
  },
  { additionalProperties: false },
);

export const CreditSchema = Type.Object(
  {
    amount_usd: Type.Number({ minimum: -1_000_000, maximum: 1_000_000 }),
    note: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

const keyFields = {
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  models: Type.Optional(Type.Union([Type.Array(ModelId, { maxItems: 10_000 }), Type.Null()])),
  rpm: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()])),
  tpm: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000_000 }), Type.Null()])),
  max_spend_usd: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1_000_000 }), Type.Null()])),
  ...budgetFields,
};

export const KeyCreateSchema = Type.Object(keyFields, { additionalProperties: false });
export type KeyCreate = Static<typeof KeyCreateSchema>;

export const KeyPatchSchema = Type.Object({ ...keyFields, disabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export type KeyPatch = Static<typeof KeyPatchSchema>;

export const UsageQuerySchema = Type.Object(
  {
    account_id: Type.Optional(Type.String({ maxLength: 100 })),
    key_id: Type.Optional(Type.String({ maxLength: 100 })),
    model: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type UsageQueryParams = Static<typeof UsageQuerySchema>;
