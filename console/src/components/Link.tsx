import type { ComponentChildren, PartialAnchorHTMLAttributes } from 'preact';
import { navigate } from '../lib/router.ts';

/** An ordinary link (works with the keyboard, opens in a new tab) that navigates in-page. */
export function Link({ href, children, ...rest }: { href: string; children: ComponentChildren } & Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'>) {
  const full = `/console${href}`;
  return (
    <a
      href={full}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
      {...rest}
    >
      {children}
    </a>
  );
}
