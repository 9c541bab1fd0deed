/** Small shared pieces: routing, data loading, tables, fields, errors, number display. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { ApiError } from './api';
import { explained, peopleWords } from './words';

export const BASE = '/app';

// ---------- routing (History API under /app) ----------
const listeners = new Set<() => void>();
export function navigate(to: string, replace = false): void {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}
window.addEventListener('popstate', () => listeners.forEach((l) => l()));
export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return p.replace(/\/+$/, '') || '/';
}
export function useRoute(): string {
  const [, tick] = useState(0);
  // a layout effect: registered before any redirect queued during the first render runs
  useLayoutEffect(() => {
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return currentPath();
}
export function param(name: string): string | null {
  return new URLSearchParams(location.search).get(name);
}

export function Link(p: { to: string; children: ComponentChildren; current?: boolean; class?: string }) {
  return (
    <a href={BASE + p.to} class={p.class} aria-current={p.current ? 'page' : undefined}
      onClick={(e) => { if (e.ctrlKey || e.metaKey || e.shiftKey) return; e.preventDefault(); navigate(p.to); }}>
      {p.children}
    </a>
  );
}

// ---------- data ----------
export interface Loaded<T> { data: T | undefined; error: unknown; loading: boolean; reload: () => void }
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, set] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    set((s) => ({ ...s, loading: true }));
    fn().then((data) => live && set({ data, loading: false }), (error) => live && set({ error, loading: false }));
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setN((x) => x + 1), []) };
}

/** The last value once it stopped changing for `ms` (a preview is asked for once typing pauses). */
export function useSettled<T>(value: T, ms = 300): T {
  const [v, setV] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return v;
}

/** Runs an action, keeping its error and a busy flag for the form that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (fn: () => Promise<string | void>) => {
    setBusy(true); setError(null); setDone(null);
    try {
      const msg = await fn();
      if (msg) setDone(msg);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, run, setError };
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as ApiError;
  return (
    <div class="error" role="alert">
      <strong>{peopleWords(e.code, e.message || String(error), e.status)}</strong>
      {e.details?.length && !explained(e.code) ? <ul>{e.details.map((d) => <li key={d}>{d}</li>)}</ul> : null}
    </div>
  );
}
export function Notice({ text }: { text: string | null }) {
  return text ? <p class="notice" role="status">{text}</p> : null;
}
export function Loading({ show }: { show: boolean }) {
  return show ? <p class="muted" role="status">Loading…</p> : null;
}

// ---------- layout ----------
export function Section(p: { title: string; children: ComponentChildren; id?: string; actions?: ComponentChildren }) {
  const id = p.id ?? 'h-' + p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (
    <section aria-labelledby={id} class="card">
      <div class="card-head"><h2 id={id}>{p.title}</h2>{p.actions}</div>
      {p.children}
    </section>
  );
}

export function Field(p: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span>{p.label}</span>
      {p.children}
      {p.hint ? <small class="muted">{p.hint}</small> : null}
    </label>
  );
}

export interface Column<R> { label: string; cell: (r: R) => ComponentChildren; num?: boolean }
export function Table<R>(p: { caption: string; columns: Column<R>[]; rows: R[] | undefined; empty?: string; rowKey?: (r: R, i: number) => string }) {
  const rows = p.rows ?? [];
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={p.caption}>
      <table>
        <caption>{p.caption}</caption>
        <thead><tr>{p.columns.map((c) => <th scope="col" class={c.num ? 'num' : undefined} key={c.label}>{c.label}</th>)}</tr></thead>
        <tbody>
          {rows.length === 0 ? <tr><td colSpan={p.columns.length} class="muted empty">{p.empty ?? 'Nothing yet.'}</td></tr> : null}
          {rows.map((r, i) => (
            <tr key={p.rowKey ? p.rowKey(r, i) : i}>{p.columns.map((c) => <td class={c.num ? 'num' : undefined} data-label={c.label} key={c.label}>{c.cell(r)}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / next through a list paged on the server, with where one is. */
export function Pager({ page, total, size, onPage, label, noun }: { page: number; total: number; size: number; onPage: (p: number) => void; label: string; noun?: [one: string, many: string] }) {
  const pages = Math.max(1, Math.ceil(total / size));
  return (
    <nav class="row pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page} of {pages}{noun ? ` · ${total.toLocaleString()} ${total === 1 ? noun[0] : noun[1]}` : ''}</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}

export function SearchBox(p: { label: string; value: string; onInput: (v: string) => void }) {
  return (
    <label class="field search">
      <span>{p.label}</span>
      <input type="search" value={p.value} onInput={(e) => p.onInput((e.target as HTMLInputElement).value)} />
    </label>
  );
}

export function Dialog(p: { title: string; open: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = (el: HTMLDialogElement | null) => {
    if (!el) return;
    if (p.open && !el.open) el.showModal();
    if (!p.open && el.open) el.close();
  };
  return (
    <dialog ref={ref} aria-label={p.title} onClose={p.onClose} onCancel={p.onClose}>
      <h2>{p.title}</h2>
      {p.children}
    </dialog>
  );
}

// ---------- numbers ----------
/** A decimal string rounded half-up to `places` for display (no float arithmetic on money). */
export function decimal(s: string | number | null | undefined, places = 2): string {
  if (s === null || s === undefined || s === '') return '—';
  const str = String(s);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(str);
  if (!m) return str;
  const [, sign, int, frac = ''] = m;
  const scaled = BigInt(int + frac.padEnd(places, '0').slice(0, places)) + (Number(frac[places] ?? '0') >= 5 ? 1n : 0n);
  const digits = scaled.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const out = places ? `${whole}.${digits.slice(-places)}` : whole;
  return (sign && scaled !== 0n ? '-' : '') + out;
}
export function money(s: string | number | null | undefined, currency?: string): string {
  return `${decimal(s)}${currency ? ' ' + currency : ''}`;
}
export function pct(x: unknown): string {
  return x === null || x === undefined ? '—' : `${Math.round(Number(x) * 100)} %`;
}
export function date(s: string | null | undefined): string {
  return s ? s.slice(0, 10) : '—';
}
