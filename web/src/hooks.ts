// Small hooks the pages share: load data with its error state, the hash route, and a poll.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever a dependency changes; keeps the previous data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    const id = ++current.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => id === current.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => id === current.current && setState({ data: undefined, error, loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export interface Route {
  page: string;
  params: string[];
  query: URLSearchParams;
}

function parseHash(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?');
  const [page = 'overview', ...params] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { page, params, query: new URLSearchParams(search) };
}

/** Hash routing: the server serves one index.html, whatever the page (also behind kube-apiserver). */
export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const update = (): void => setRoute(parseHash());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function navigate(to: string): void {
  location.hash = to;
}
