import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { t } from '../i18n/index.ts';

interface Props {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal on the native <dialog>: the rest of the page is inert, Tab and Shift+Tab cycle inside
 * it, Escape closes it, and focus goes back to what opened it.
 */
export function Dialog({ open, title, onClose, children, wide }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      const first = dialog.querySelector<HTMLElement>('[autofocus], .dialog-body ' + FOCUSABLE.split(', ').join(', .dialog-body '));
      first?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      // only now: while the modal is open the rest of the page is inert and cannot take focus
      (opener.current as HTMLElement | null)?.focus?.();
    }
  }, [open]);

  useEffect(() => () => (opener.current as HTMLElement | null)?.focus?.(), []);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };


  return (
    <dialog
      ref={ref}
      class={wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      onCancel={(e) => {
        e.preventDefault();
        onClose(); // the effect above closes the modal and returns focus once open is false
      }}
    >
      {open && (
        <>
          <header class="dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" class="icon-button" aria-label={t('common.close')} onClick={onClose}>
              ×
            </button>
          </header>
          <div class="dialog-body">{children}</div>
        </>
      )}
    </dialog>
  );
}
