import { useId, useState } from 'preact/hooks';
import { t } from '../i18n/index.ts';

/** Copies `text`; says so for two seconds (announced to screen readers). */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // clipboard refused (insecure context): leave the text selectable; nothing else to do
      return;
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button type="button" class="button small" onClick={copy}>
      <span aria-live="polite">{copied ? t('common.copied') : (label ?? t('common.copy'))}</span>
    </button>
  );
}

export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div class="code-block">
      <div class="code-head">
        <span>{label}</span>
        <CopyButton text={code} />
      </div>
      <pre tabIndex={0} aria-label={label}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

/** Snippets in tabs (arrow keys move between tabs, as the ARIA tabs pattern asks). */
export function CodeTabs({ tabs, label }: { tabs: Array<{ id: string; label: string; code: string }>; label: string }) {
  const [active, setActive] = useState(0);
  const id = useId();
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const next = (active + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length;
    setActive(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };
  const current = tabs[active]!;
  return (
    <div class="code-block">
      <div class="code-head">
        <div role="tablist" aria-label={label} class="tabs" onKeyDown={onKey}>
          {tabs.map((tab, i) => (
            <button
              key={tab.id}
              id={`${id}-tab-${i}`}
              type="button"
              role="tab"
              class="tab"
              aria-selected={i === active}
              aria-controls={`${id}-panel`}
              tabIndex={i === active ? 0 : -1}
              onClick={() => setActive(i)}
            >
              {tab.label}
            </button>
          ))}
        </div>
        <CopyButton text={current.code} />
      </div>
      <pre id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${active}`} tabIndex={0}>
        <code>{current.code}</code>
      </pre>
    </div>
  );
}
