import { useId, useState } from 'preact/hooks';
import { Field, Select } from '../../components/Field.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { t } from '../../i18n/index.ts';

export interface ProviderView {
  id: string;
  name: string;
  type: string;
  base_url: string;
  api_key_preview: string;
  models: string[];
  model_map: Record<string, string>;
  priority: number;
  weight: number;
  enabled: boolean;
  settings: { connect_timeout_ms?: number; first_byte_timeout_ms?: number; idle_timeout_ms?: number; max_connections?: number };
  health: string;
}

const SETTINGS = ['connect_timeout_ms', 'first_byte_timeout_ms', 'idle_timeout_ms', 'max_connections'] as const;

function parseMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const [from, to] = line.split('=').map((s) => s.trim());
    if (from && to) map[from] = to;
  }
  return map;
}

function TextArea({ label, value, onValue, hint, rows = 4 }: { label: string; value: string; onValue: (v: string) => void; hint: string; rows?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} aria-describedby={`${id}-hint`} onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)} />
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}

/** Every field of a provider. The upstream key is write-only: empty on edit means "keep the saved one". */
export function ProviderForm({ initial, families, onSubmit }: { initial?: ProviderView; families: string[]; onSubmit: (body: Record<string, unknown>) => Promise<void> }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [type, setType] = useState(initial?.type ?? families[0] ?? 'openai');
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? '');
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState(initial?.models.join('\n') ?? '');
  const [modelMap, setModelMap] = useState(Object.entries(initial?.model_map ?? {}).map(([a, b]) => `${a} = ${b}`).join('\n'));
  const [priority, setPriority] = useState(String(initial?.priority ?? 0));
  const [weight, setWeight] = useState(String(initial?.weight ?? 1));
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [settings, setSettings] = useState<Record<string, string>>(Object.fromEntries(SETTINGS.map((k) => [k, initial?.settings[k]?.toString() ?? ''])));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const numbers = Object.fromEntries(Object.entries(settings).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, Number(v)]));
      await onSubmit({
        name: name.trim(),
        type,
        base_url: baseUrl.trim(),
        ...(apiKey !== '' || !initial ? { api_key: apiKey } : {}),
        models: models.split(/[\n,]/).map((m) => m.trim()).filter(Boolean),
        model_map: parseMap(modelMap),
        priority: Number(priority),
        weight: Number(weight),
        enabled,
        settings: numbers,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack" onSubmit={submit}>
      <ErrorText error={error} />
      <div class="row">
        <Field label={t('providers.name')} name="name" required value={name} onValue={setName} maxLength={100} />
        <Select label={t('providers.type')} name="type" value={type} onValue={setType} options={families.map((f) => ({ value: f, label: f }))} hint={t('providers.typeHint')} />
      </div>
      <Field label={t('providers.baseUrl')} name="base_url" type="url" required value={baseUrl} onValue={setBaseUrl} placeholder="https://api.example.com/v1" />
      <Field
        label={t('providers.apiKey')}
        name="api_key"
        type="password"
        autoComplete="off"
        required={!initial}
        value={apiKey}
        onValue={setApiKey}
        placeholder={initial ? t('providers.apiKeyKeep', { preview: initial.api_key_preview || '—' }) : ''}
        hint={t('providers.apiKeyHint')}
      />
      <TextArea label={t('providers.models')} value={models} onValue={setModels} hint={t('providers.modelsHint')} />
      <TextArea label={t('providers.modelMap')} value={modelMap} onValue={setModelMap} hint={t('providers.modelMapHint')} rows={3} />
      <div class="row">
        <Field label={t('providers.priority')} type="number" step={1} name="priority" value={priority} onValue={setPriority} hint={t('providers.priorityHint')} />
        <Field label={t('providers.weight')} type="number" min={0} step={1} name="weight" value={weight} onValue={setWeight} hint={t('providers.weightHint')} />
      </div>
      <details class="details">
        <summary>{t('providers.timeouts')}</summary>
        <div class="row">
          {SETTINGS.map((k) => (
            <Field key={k} label={t(`providers.setting.${k}`)} type="number" min={1} step={1} value={settings[k]} onValue={(v) => setSettings((s) => ({ ...s, [k]: v }))} />
          ))}
        </div>
      </details>
      <label class="check">
        <input type="checkbox" name="enabled" checked={enabled} onChange={(e) => setEnabled((e.currentTarget as HTMLInputElement).checked)} />
        {t('providers.enabled')}
      </label>
      <div class="dialog-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? t('common.working') : t('common.save')}
        </button>
      </div>
    </form>
  );
}
