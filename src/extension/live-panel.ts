// The live run panel: a small webview listing each trial of a running benchmark with its streaming metrics and status, and on Slurm runs each candidate's batch job.
import * as vscode from 'vscode';
import type { RunEvent } from '../runner';
import { livePageHtml, type LiveMessage, type LiveUpdate } from '../webview/live-page';
import { createNonce } from '../webview/nonce';
import { LiveState } from './live-state';

export const LIVE_VIEW_TYPE = 'autobench.live';

/** Follows a run's events and keeps the panel's tables in step; the host keeps the state so a reloaded page catches up. */
export class LivePanel {
  private readonly state = new LiveState();
  private readonly panel: vscode.WebviewPanel;
  /** Updates sent, and the last one the page acknowledged with its row count: tests wait for the page to catch up. */
  private sent = 0;
  private acked = { seq: -1, rows: 0 };
  private readonly ackListeners = new Set<() => void>();

  constructor(title: string) {
    this.panel = vscode.window.createWebviewPanel(LIVE_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] });
    this.panel.webview.html = livePageHtml(createNonce());
    this.panel.webview.onDidReceiveMessage((m: unknown) => {
      if (typeof m !== 'object' || m === null) return;
      const msg = m as { type?: unknown; rows?: unknown; seq?: unknown };
      if (msg.type === 'ready') for (const u of this.state.snapshot()) this.post(u);
      if (msg.type === 'shown' && typeof msg.rows === 'number' && typeof msg.seq === 'number' && msg.seq >= this.acked.seq) {
        this.acked = { seq: msg.seq, rows: msg.rows };
        for (const l of this.ackListeners) l();
      }
    });
  }

  /** Headers and the outcome are not acknowledged, so they take no number the page would have to answer. */
  private post(u: LiveUpdate): void {
    const msg: LiveMessage = { ...u, seq: u.type === 'header' || u.type === 'outcome' ? -1 : this.sent++ };
    void this.panel.webview.postMessage(msg);
  }

  /** Resolves with the trial rows the page shows once it acknowledged the last update (or what it had shown after `timeoutMs`). */
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
    this.post(this.state.setHeader(text));
  }

  setOutcome(text: string, level: 'info' | 'warning'): void {
    this.post(this.state.setOutcome(text, level));
  }

  onEvent(e: RunEvent): void {
    const u = this.state.apply(e);
    if (u) this.post(u);
  }

  dispose(): void {
    this.panel.dispose();
  }
}
