import { effect, signal } from '@preact/signals';

/** Display preferences kept in localStorage (not view state: that lives in the URL). */
type Theme = 'light' | 'dark' | 'system';

function stored<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const v = localStorage.getItem(key) as T | null;
    return v && allowed.includes(v) ? v : fallback;
  } catch {
    return fallback;
  }
}

function persist(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private mode or storage disabled: the choice lasts this page only.
  }
}

export const theme = signal<Theme>(stored('spyglass.theme', ['light', 'dark', 'system'], 'system'));
/** Times in UTC instead of the browser's zone. */
export const utc = signal<boolean>(stored('spyglass.utc', ['1', '0'], '0') === '1');

export function applyTheme(): void {
  effect(() => {
    const t = theme.value;
    if (t === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = t;
    persist('spyglass.theme', t);
  });
  effect(() => persist('spyglass.utc', utc.value ? '1' : '0'));
}

export function nextTheme(): void {
  theme.value = theme.value === 'system' ? 'dark' : theme.value === 'dark' ? 'light' : 'system';
}
