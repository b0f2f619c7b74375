import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Page<T, C> {
  data: T[];
  next_before: C | null;
}

/**
 * Cursor paging kept on the server: the page holds a stack of cursors, so "older" and
 * "newer" are each one API call and nothing is counted.
 */
export function usePager<C, P extends Page<unknown, C>>(load: (before: C | undefined) => Promise<P>, deps: unknown[]) {
  const [stack, setStack] = useState<Array<C | undefined>>([undefined]);
  const [page, setPage] = useState<P | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);

  // back to the first page when the filter changes (not on mount: that would load it twice)
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) setStack([undefined]);
    mounted.current = true;
  }, deps);

  const cursor = stack[stack.length - 1];
  useEffect(() => {
    let live = true;
    setLoading(true);
    load(cursor)
      .then((p) => {
        if (!live) return;
        setPage(p);
        setError(null);
      })
      .catch((e: unknown) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [stack, version]);

  return {
    page,
    rows: (page?.data ?? []) as P['data'],
    loading,
    error,
    pageNumber: stack.length,
    hasNewer: stack.length > 1,
    hasOlder: page?.next_before !== null && page?.next_before !== undefined,
    older: useCallback(() => page?.next_before != null && setStack((s) => [...s, page.next_before as C]), [page]),
    newer: useCallback(() => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)), []),
    reload: useCallback(() => setVersion((v) => v + 1), []),
  };
}
