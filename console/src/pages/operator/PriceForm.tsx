import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import type { Pricing, TokenPrices } from '../customer/Models.tsx';

const SIMPLE = [
  'input_per_mtok',
  'cached_input_per_mtok',
  'output_per_mtok',
  'cache_write_per_mtok',
  'audio_input_per_mtok',
  'cached_audio_input_per_mtok',
  'audio_output_per_mtok',
  'per_request',
  'per_second',
  'per_mchar',
] as const;
/** the token prices a service tier or long context replaces in this form (others are kept as they were) */
const TIER_FIELDS = ['input_per_mtok', 'cached_input_per_mtok', 'output_per_mtok'] as const;
type TierField = (typeof TIER_FIELDS)[number];
const QUALITIES = ['*', 'standard', 'hd', 'low', 'medium', 'high', 'auto'];

interface ImageRow {
  quality: string;
  size: string;
  price: string;
}

interface TierRow {
  tier: string;
  prices: Record<TierField, string>;
  /** the tier's other fields, kept unchanged */
  rest: TokenPrices;
}

interface ToolRow {
  tool: string;
  price: string;
}

function tierRow(tier: string, prices: TokenPrices): TierRow {
  const rest: TokenPrices = { ...prices };
  for (const field of TIER_FIELDS) delete rest[field];
  return { tier, prices: Object.fromEntries(TIER_FIELDS.map((f) => [f, prices[f] ?? ''])) as Record<TierField, string>, rest };
}

/** the filled token fields as numbers, on top of the fields the form does not show */
function tokenPrices(prices: Record<TierField, string>, rest: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === 'string' ? Number(v) : v]));
  for (const field of TIER_FIELDS) if (prices[field].trim() !== '') out[field] = Number(prices[field]);
  return out;
}

/** Every pricing field of the contract, in USD; empty fields are left out (they cost nothing). */
export function PriceForm({ model, pricing, askId, onSubmit }: { model?: string; pricing: Pricing | null; askId?: boolean; onSubmit: (id: string, pricing: Record<string, unknown>) => Promise<void> }) {
  const [id, setId] = useState(model ?? '');
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(SIMPLE.map((k) => [k, pricing?.[k] ?? ''])));
  const [images, setImages] = useState<ImageRow[]>(
    Object.entries(pricing?.per_image ?? {}).flatMap(([quality, sizes]) => Object.entries(sizes).map(([size, price]) => ({ quality, size, price }))),
  );
  const [tiers, setTiers] = useState<TierRow[]>(Object.entries(pricing?.service_tiers ?? {}).map(([tier, prices]) => tierRow(tier, prices)));
  const [tools, setTools] = useState<ToolRow[]>(Object.entries(pricing?.per_tool_call ?? {}).map(([tool, price]) => ({ tool, price })));
  const { threshold_tokens: threshold, ...longPrices } = pricing?.long_context ?? { threshold_tokens: undefined };
  const [longThreshold, setLongThreshold] = useState(threshold === undefined ? '' : String(threshold));
  const [long, setLong] = useState<TierRow>(tierRow('long', longPrices));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const out: Record<string, unknown> = {};
      for (const k of SIMPLE) if (values[k]!.trim() !== '') out[k] = Number(values[k]);
      const perImage: Record<string, Record<string, number>> = {};
      for (const row of images) if (row.size.trim() && row.price.trim()) (perImage[row.quality] ??= {})[row.size.trim()] = Number(row.price);
      if (Object.keys(perImage).length > 0) out.per_image = perImage;
      const serviceTiers: Record<string, unknown> = {};
      for (const row of tiers) if (row.tier.trim()) serviceTiers[row.tier.trim()] = tokenPrices(row.prices, row.rest);
      if (Object.keys(serviceTiers).length > 0) out.service_tiers = serviceTiers;
      const perToolCall: Record<string, number> = {};
      for (const row of tools) if (row.tool.trim() && row.price.trim()) perToolCall[row.tool.trim()] = Number(row.price);
      if (Object.keys(perToolCall).length > 0) out.per_tool_call = perToolCall;
      if (longThreshold.trim() !== '') out.long_context = { ...tokenPrices(long.prices, long.rest), threshold_tokens: Number(longThreshold) };
      await onSubmit(id.trim(), out);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const setImage = (i: number, patch: Partial<ImageRow>) => setImages((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const setTier = (i: number, patch: Partial<TierRow>) => setTiers((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const setTool = (i: number, patch: Partial<ToolRow>) => setTools((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  // labelled with the tier's name: each field's label is unique in the form
  const tierFields = (label: string, row: TierRow, onPrices: (prices: Record<TierField, string>) => void) =>
    TIER_FIELDS.map((f) => (
      <Field key={f} label={t(`prices.tier.${f}`, { tier: label })} type="number" min={0} step="any" value={row.prices[f]} onValue={(v) => onPrices({ ...row.prices, [f]: v })} />
    ));

  return (
    <form class="stack" onSubmit={submit}>
      <ErrorText error={error} />
      {askId && <Field label={t('models.model')} name="model" required value={id} onValue={setId} placeholder="my-model" />}
      <div class="row three">
        {SIMPLE.map((k) => (
          <Field key={k} label={t(`prices.${k}`)} type="number" min={0} step="any" name={k} value={values[k]} onValue={(v) => setValues((s) => ({ ...s, [k]: v }))} />
        ))}
      </div>
      <fieldset class="fieldset">
        <legend>{t('prices.per_image')}</legend>
        {images.map((row, i) => (
          <div class="row image-row" key={i}>
            <label class="field">
              <span>{t('prices.quality')}</span>
              <select value={row.quality} onChange={(e) => setImage(i, { quality: (e.currentTarget as HTMLSelectElement).value })}>
                {QUALITIES.map((q) => (
                  <option key={q} value={q}>
                    {q}
                  </option>
                ))}
              </select>
            </label>
            <Field label={t('prices.size')} value={row.size} onValue={(size) => setImage(i, { size })} placeholder="1024x1024 or *" />
            <Field label={t('prices.usd')} type="number" min={0} step="any" value={row.price} onValue={(price) => setImage(i, { price })} />
            <button type="button" class="button small danger" onClick={() => setImages((rows) => rows.filter((_, j) => j !== i))}>
              {t('common.remove')}
            </button>
          </div>
        ))}
        <button type="button" class="button small" onClick={() => setImages((rows) => [...rows, { quality: '*', size: '*', price: '' }])}>
          {t('prices.addImagePrice')}
        </button>
      </fieldset>
      <fieldset class="fieldset">
        <legend>{t('prices.paidFeatures')}</legend>
        {tools.map((row, i) => (
          <div class="row image-row" key={`tool-${i}`}>
            <Field label={t('prices.tool')} value={row.tool} onValue={(tool) => setTool(i, { tool })} placeholder="web_search" />
            <Field label={t('prices.perCall')} type="number" min={0} step="any" value={row.price} onValue={(price) => setTool(i, { price })} />
            <button type="button" class="button small danger" onClick={() => setTools((rows) => rows.filter((_, j) => j !== i))}>
              {t('common.remove')}
            </button>
          </div>
        ))}
        <button type="button" class="button small" onClick={() => setTools((rows) => [...rows, { tool: 'web_search', price: '' }])}>
          {t('prices.addTool')}
        </button>
        {tiers.map((row, i) => (
          <div class="row image-row" key={`tier-${i}`}>
            <Field label={t('prices.tier')} value={row.tier} onValue={(tier) => setTier(i, { tier })} placeholder="priority" />
            {tierFields(row.tier || t('prices.tier'), row, (prices) => setTier(i, { prices }))}
            <button type="button" class="button small danger" onClick={() => setTiers((rows) => rows.filter((_, j) => j !== i))}>
              {t('common.remove')}
            </button>
          </div>
        ))}
        <button type="button" class="button small" onClick={() => setTiers((rows) => [...rows, tierRow('priority', {})])}>
          {t('prices.addTier')}
        </button>
        <div class="row image-row">
          <Field label={`${t('prices.longContext')}: ${t('prices.threshold')}`} type="number" min={1} step={1} value={longThreshold} onValue={setLongThreshold} placeholder="200000" />
          {tierFields(t('prices.longContext'), long, (prices) => setLong({ ...long, prices }))}
        </div>
      </fieldset>
      <p class="hint">{t('prices.hint')}</p>
      <div class="dialog-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? t('common.working') : t('common.save')}
        </button>
      </div>
    </form>
  );
}
