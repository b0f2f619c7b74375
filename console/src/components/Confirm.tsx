import { useState } from 'preact/hooks';
import { t } from '../i18n/index.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorText } from './Notice.tsx';

/** A yes/no dialog for actions that cannot be undone. */
export function Confirm(props: { open: boolean; title: string; text: string; confirm: string; danger?: boolean; onClose: () => void; onConfirm: () => Promise<void> }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose}>
      <div class="stack">
        <p>{props.text}</p>
        <ErrorText error={error} />
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" class={props.danger ? 'button danger-solid' : 'button primary'} disabled={busy} onClick={run}>
            {props.confirm}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
