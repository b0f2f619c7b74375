import type { ComponentChildren, InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';

type Props = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput' | 'role'> & {
  label: string;
  hint?: ComponentChildren;
  error?: string | null | undefined;
  onValue?: (value: string) => void;
};

/** A labelled input with an optional hint and error, wired for screen readers. */
export function Field({ label, hint, error, onValue, ...input }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        onInput={(e) => onValue?.((e.currentTarget as HTMLInputElement).value)}
        // Preact types `type` as a union per role; the plain attribute bag is what we pass through
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
      />
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

interface SelectProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  hint?: string;
  name?: string;
}

export function Select({ label, value, onValue, options, hint, name }: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
