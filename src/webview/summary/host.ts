/// <reference lib="dom" />
// Where the panel runs: a VS Code webview (messages to the extension host, vscode state) or a plain
// browser opening `report --html` (downloads, clipboard, sessionStorage). One interface for both.
import type { PanelState, PanelToHost, SaveFormat } from '../protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare const acquireVsCodeApi: undefined | (() => VsCodeApi);

export interface Host {
  kind: 'webview' | 'browser';
  post(message: PanelToHost): void;
  getState(): PanelState | undefined;
  setState(state: PanelState): void;
  save(format: SaveFormat, fileName: string, content: string): void;
  copy(text: string): Promise<boolean>;
}

const STORAGE_KEY = 'autobench.summary.state';

function asState(v: unknown): PanelState | undefined {
  return typeof v === 'object' && v !== null ? (v) : undefined;
}

export function createHost(): Host {
  // acquireVsCodeApi may be called once per page; a browser has no such function.
  const api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  if (api) {
    return {
      kind: 'webview',
      post: (m) => api.postMessage(m),
      getState: () => asState(api.getState()),
      setState: (s) => api.setState(s),
      save: (format, fileName, content) => api.postMessage({ type: 'save', format, fileName, content } satisfies PanelToHost),
      copy: (text) => {
        api.postMessage({ type: 'copy', text } satisfies PanelToHost);
        return Promise.resolve(true);
      },
    };
  }
  return {
    kind: 'browser',
    post: (m) => window.dispatchEvent(new CustomEvent('autobench:message', { detail: m })),
    getState: () => {
      try {
        const raw = sessionStorage.getItem(STORAGE_KEY);
        return raw ? asState(JSON.parse(raw)) : undefined;
      } catch {
        return undefined; // file:// pages may refuse storage
      }
    },
    setState: (s) => {
      try {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
      } catch {
        /* state is a convenience; a page without storage still works */
      }
    },
    save: (format, fileName, content) => {
      const type = format === 'csv' ? 'text/csv' : 'text/markdown';
      const url = URL.createObjectURL(new Blob([content], { type: `${type};charset=utf-8` }));
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
    copy: async (text) => {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch {
        // Clipboard API refused (file:// without permission): fall back to a selected textarea.
        const ta = document.createElement('textarea');
        ta.value = text;
        ta.className = 'offscreen';
        document.body.append(ta);
        ta.select();
        const ok = document.execCommand('copy');
        ta.remove();
        return ok;
      }
    },
  };
}
