import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';
import type { Pricing } from '../customer/Models.tsx';

const SIMPLE = ['input_per_mtok', 'cached_input_per_mtok', 'output_per_mtok', 'per_request', 'per_second', 'per_mchar'] as const;
const QUALITIES = ['*', 'standard', 'hd', 'low', 'medium', 'high', 'auto'];

interface ImageRow {
  quality: string;
  size: string;
  price: string;
}

/** Every pricing field of the contract, in USD; empty fields are left out (they cost nothing). */
export function PriceForm({ model, pricing, askId, onSubmit }: { model?: string; pricing: Pricing | null; askId?: boolean; onSubmit: (id: string, pricing: Record<string, unknown>) => Promise<void> }) {
  const [id, setId] = useState(model ?? '');
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(SIMPLE.map((k) => [k, pricing?.[k] ?? ''])));
  const [images, setImages] = useState<ImageRow[]>(
    Object.entries(pricing?.per_image ?? {}).flatMap(([quality, sizes]) => Object.entries(sizes).map(([size, price]) => ({ quality, size, price }))),
  );
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
      await onSubmit(id.trim(), out);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const setImage = (i: number, patch: Partial<ImageRow>) => setImages((rows) => rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

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
      <p class="hint">{t('prices.hint')}</p>
      <div class="dialog-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? t('common.working') : t('common.save')}
        </button>
      </div>
    </form>
  );
}
