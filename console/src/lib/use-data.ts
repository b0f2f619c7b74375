import { useCallback, useEffect, useState } from 'preact/hooks';

/** Loads once per change of `deps`; `reload` fetches again; `update` patches the shown data at once (an answer already in hand). */
export function useData<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load()
      .then((d) => {
        if (!live) return;
        setData(d);
        setError(null);
      })
      .catch((e: unknown) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [...deps, version]);
  const update = useCallback((patch: (current: T) => T) => setData((current) => (current === null ? current : patch(current))), []);
  return { data, error, loading, update, reload: useCallback(() => setVersion((v) => v + 1), []) };
}
