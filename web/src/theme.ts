// Light or dark theme, remembered in localStorage; index.html applies it before the first paint.
import { useEffect, useState } from 'preact/hooks';

export type Theme = 'light' | 'dark';
const KEY = 'rehearsal-theme';
const listeners = new Set<(theme: Theme) => void>();

function current(): Theme {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

export function setTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // private mode: the choice lasts for this page only
  }
  for (const listener of listeners) listener(theme);
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, set] = useState<Theme>(current);
  useEffect(() => {
    listeners.add(set);
    return () => void listeners.delete(set);
  }, []);
  return [theme, setTheme];
}
