// The live run panel: a small webview listing each trial of a running benchmark with its streaming metrics and status.
import * as vscode from 'vscode';
import type { RunEvent } from '../runner';
import { createNonce } from '../webview/nonce';

export const LIVE_VIEW_TYPE = 'autobench.live';

/** One table row as the page shows it: every field is plain text (the page sets textContent only). */
export interface LiveRow {
  key: string;
  trial: string;
  status: string;
  reqPerS: string;
  tokPerS: string;
  ttft: string;
  tpot: string;
}

type LiveMessage = { type: 'header'; text: string } | { type: 'row'; row: LiveRow; seq: number };

const num = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/** The page: inline script and style allowed only by this load's nonce; nothing else can run or load. */
function pageHtml(nonce: string): string {
  const script = `
const vscode = acquireVsCodeApi();
const head = document.getElementById('head');
const body = document.getElementById('rows');
const rows = new Map();
const cols = ['trial', 'status', 'reqPerS', 'tokPerS', 'ttft', 'tpot'];
window.addEventListener('message', (e) => {
  const m = e.data;
  if (!m || typeof m !== 'object') return;
  if (m.type === 'header' && typeof m.text === 'string') { head.textContent = m.text; return; }
  if (m.type !== 'row' || !m.row || typeof m.row.key !== 'string') return;
  let tr = rows.get(m.row.key);
  if (!tr) {
    tr = document.createElement('tr');
    for (const c of cols) tr.appendChild(document.createElement('td'));
    rows.set(m.row.key, tr);
    body.appendChild(tr);
  }
  cols.forEach((c, i) => { tr.children[i].textContent = String(m.row[c] ?? ''); });
  tr.className = String(m.row.status).split(' ')[0].replace(/[^a-z_-]/g, '');
  vscode.postMessage({ type: 'shown', rows: rows.size, seq: m.seq });
});
vscode.postMessage({ type: 'ready' });
`;
  const style = `
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border); font-variant-numeric: tabular-nums; }
tr.ok td:nth-child(2) { color: var(--vscode-testing-iconPassed); }
tr.failed td:nth-child(2), tr.oom td:nth-child(2), tr.timeout td:nth-child(2), tr.sla-failing td:nth-child(2) { color: var(--vscode-errorForeground); }
`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<style nonce="${nonce}">${style}</style>
</head><body>
<p id="head"></p>
<table><thead><tr><th>Trial</th><th>Status</th><th>req/s</th><th>tok/s</th><th>p50 TTFT ms</th><th>p50 TPOT ms</th></tr></thead><tbody id="rows"></tbody></table>
<script nonce="${nonce}">${script}</script>
</body></html>`;
}

function trialLabel(e: { framework: string; candidateId: string; scenario: string; mode: string; rate: number | 'inf'; concurrency: number | null; round: number }): string {
  const rate = e.rate === 'inf' ? 'max rate' : `${num(e.rate, 2)} req/s`;
  const conc = e.concurrency === null ? '' : `, concurrency ${e.concurrency}`;
  const round = e.mode === 'search' ? ` (search round ${e.round})` : '';
  return `${e.framework} ${e.candidateId} · ${e.scenario} @ ${rate}${conc}${round}`;
}

/** Follows a run's events and keeps the panel's table in step; the host keeps the state so a reloaded page catches up. */
export class LivePanel {
  private readonly rows = new Map<string, LiveRow>();
  private header = '';
  private readonly panel: vscode.WebviewPanel;
  /** Updates sent, and the last one the page acknowledged with its row count: tests wait for the page to catch up. */
  private sent = 0;
  private acked = { seq: -1, rows: 0 };
  private readonly ackListeners = new Set<() => void>();

  constructor(title: string) {
    this.panel = vscode.window.createWebviewPanel(LIVE_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] });
    this.panel.webview.html = pageHtml(createNonce());
    this.panel.webview.onDidReceiveMessage((m: unknown) => {
      if (typeof m !== 'object' || m === null) return;
      const msg = m as { type?: unknown; rows?: unknown; seq?: unknown };
      if (msg.type === 'ready') this.replay();
      if (msg.type === 'shown' && typeof msg.rows === 'number' && typeof msg.seq === 'number' && msg.seq >= this.acked.seq) {
        this.acked = { seq: msg.seq, rows: msg.rows };
        for (const l of this.ackListeners) l();
      }
    });
  }

  private post(msg: LiveMessage): void {
    void this.panel.webview.postMessage(msg);
  }

  private replay(): void {
    this.post({ type: 'header', text: this.header });
    for (const row of this.rows.values()) this.postRow(row);
  }

  private postRow(row: LiveRow): void {
    this.post({ type: 'row', row, seq: this.sent++ });
  }

  /** Resolves with the rows the page shows once it acknowledged the last update (or what it had shown after `timeoutMs`). */
  settled(timeoutMs: number): Promise<number> {
    return new Promise((resolve) => {
      const done = () => {
        if (this.acked.seq < this.sent - 1) return;
        finish();
      };
      const finish = () => {
        clearTimeout(timer);
        this.ackListeners.delete(done);
        resolve(this.acked.rows);
      };
      const timer = setTimeout(finish, timeoutMs);
      this.ackListeners.add(done);
      done();
    });
  }

  setHeader(text: string): void {
    this.header = text;
    this.post({ type: 'header', text });
  }

  private update(key: string, patch: Partial<LiveRow>): void {
    const row: LiveRow = { ...(this.rows.get(key) ?? { key, trial: '', status: '', reqPerS: '–', tokPerS: '–', ttft: '–', tpot: '–' }), ...patch };
    this.rows.set(key, row);
    this.postRow(row);
  }

  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'trial-start':
        this.update(e.key, { trial: trialLabel(e), status: 'running' });
        break;
      case 'trial-progress':
        this.update(e.key, {
          trial: trialLabel(e),
          status: `running ${e.completed}/${e.total}${e.failed ? `, ${e.failed} failed` : ''}`,
          reqPerS: num(e.requestsPerS, 2),
          tokPerS: num(e.outputTokensPerS, 0),
          ttft: num(e.ttftMsP50, 1),
          tpot: num(e.tpotMsP50, 2),
        });
        break;
      case 'trial-end': {
        const status = e.status === 'ok' && !e.slaPassed ? 'sla-failing' : e.status;
        const why = e.reasons.length ? ` (${e.reasons.join('; ')})` : '';
        this.update(e.key, {
          trial: trialLabel(e),
          status: `${status}${e.resumed ? ' (resumed)' : ''}${why}`,
          reqPerS: num(e.requestThroughput, 2),
          ttft: num(e.p50TtftMs, 1),
          tpot: num(e.p50TpotMs, 2),
        });
        break;
      }
      case 'candidate-end':
        if (e.status !== 'done' && e.status !== 'ok') this.update(`${e.framework}/${e.candidateId}/server`, { trial: `${e.framework} ${e.candidateId} · server`, status: `${e.status}${e.reason ? ` (${e.reason})` : ''}` });
        break;
      default:
        break;
    }
  }

  dispose(): void {
    this.panel.dispose();
  }
}
