import { Store } from '../lib/store.ts';
import { en } from './en.ts';
import { zh } from './zh.ts';

export type Lang = 'en' | 'zh';
export type Key = keyof typeof en;

const dictionaries: Record<Lang, Record<Key, string>> = { en, zh };
export const LANGS: Array<{ id: Lang; label: string }> = [
  { id: 'en', label: 'English' },
  { id: 'zh', label: '中文' },
];

function initial(): Lang {
  const saved = localStorage.getItem('mg.lang');
  if (saved === 'en' || saved === 'zh') return saved;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export const lang = new Store<Lang>(initial());

export function setLang(value: Lang): void {
  localStorage.setItem('mg.lang', value);
  document.documentElement.lang = value === 'zh' ? 'zh-CN' : 'en';
  lang.set(value);
}
document.documentElement.lang = lang.get() === 'zh' ? 'zh-CN' : 'en';

/** Text of `key` in the current language; `{name}` placeholders filled from `params`. */
export function t(key: Key, params: Record<string, string | number> = {}): string {
  const text = dictionaries[lang.get()][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`));
}
