import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { LanguageSwitch } from '../../components/Layout.tsx';

export function AuthFrame({ title, children, footer }: { title: string; children: ComponentChildren; footer?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · modelgate`;
  }, [title]);
  return (
    <div class="auth">
      <main class="auth-card" id="main">
        <div class="auth-top">
          <div class="brand">
            <span class="logo" aria-hidden="true">
              M
            </span>
            <span>modelgate</span>
          </div>
          <LanguageSwitch />
        </div>
        <h1>{title}</h1>
        {children}
        {footer && <div class="auth-foot">{footer}</div>}
      </main>
    </div>
  );
}
