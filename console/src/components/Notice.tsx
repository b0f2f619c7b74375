import type { ComponentChildren } from 'preact';

/** A message box; errors are announced at once (role=alert), the rest politely. */
export function Notice({ kind = 'info', children }: { kind?: 'info' | 'warning' | 'error' | 'success'; children: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return <Notice kind="error">{error instanceof Error ? error.message : String(error)}</Notice>;
}
