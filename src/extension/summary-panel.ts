// The summary panel in VS Code: a webview over the report model of a rows file, with save and copy handled by the host.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildReport } from '../core/results/report';
import { readRows, validateRows } from '../core/results/rows';
import { REPORT_MODEL_VERSION, type ReportModel } from '../core/results/report-model';
import { readRunEntry } from '../core/results/run-list';
import { REPORT_FILE } from '../runner/summary';
import { createNonce } from '../webview/nonce';
import { summaryPanelHtml } from '../webview/panel-html';
import { isPanelToHost, type HostToPanel } from '../webview/protocol';

export const SUMMARY_VIEW_TYPE = 'autobench.summary';
const LAST_FILES_KEY = 'autobench.summary.lastFiles';

export interface OpenedSummary {
  file: string;
  rowCount: number;
  renderMs: number;
  /** The header's outcome line as the page rendered it ("1 candidate · 1 measured · … · not in this run: vllm"). */
  counts: string;
}

/** The run's own report (report.json beside a run's rows.jsonl, written after its last row), or undefined. */
function savedReport(file: string): ReportModel | undefined {
  const saved = path.join(path.dirname(file), REPORT_FILE);
  try {
    if (path.basename(file) !== 'rows.jsonl' || !existsSync(saved) || statSync(saved).mtimeMs < statSync(file).mtimeMs) return undefined;
    const model = JSON.parse(readFileSync(saved, 'utf8')) as ReportModel;
    return model.version === REPORT_MODEL_VERSION && Array.isArray(model.candidates) && model.outcome !== undefined ? model : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The report model of a rows file: a run directory's own report (with the plan's and the manifest's facts, the same
 * as its summary.md) while it is current, else the rows alone; a bad line becomes a thrown error naming the file and line.
 */
export function loadModel(file: string): ReportModel {
  const saved = savedReport(file);
  if (saved) return saved;
  const read = readRows(readFileSync(file, 'utf8'), file);
  if (!read.ok) throw new Error(read.message);
  return buildReport(read.rows, { rowsFile: file, issues: validateRows(read.rows) });
}

/** "Summary: demo.plan · 2026-12-02 04:02" for a run's rows, else "Summary: <file name>". */
export function summaryTitle(file: string): string {
  const run = path.basename(file) === 'rows.jsonl' ? readRunEntry(path.dirname(file)) : undefined;
  return `Summary: ${run ? run.label : path.basename(file)}`;
}

export class SummaryPanels {
  /** The panel of each rows file shown (reused when it is opened again). */
  private readonly open = new Map<string, vscode.WebviewPanel>();
  /** Each panel's message handler for the page it shows now. */
  private readonly handlers = new Map<vscode.WebviewPanel, vscode.Disposable>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private get root(): vscode.Uri {
    return vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview');
  }

  /** Opens (or revives) a panel for `file`, one per file: opening it again reuses its tab; resolves when the panel has rendered the rows. */
  show(file: string, existing?: vscode.WebviewPanel, reveal?: string): Promise<OpenedSummary> {
    const model = loadModel(file);
    const title = summaryTitle(file);
    const open = existing ?? this.open.get(file);
    const panel =
      open ??
      vscode.window.createWebviewPanel(SUMMARY_VIEW_TYPE, title, vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [this.root],
      });
    if (!this.open.has(file)) {
      this.open.set(file, panel);
      panel.onDidDispose(() => this.open.delete(file));
    }
    if (open && !existing) panel.reveal(undefined, false);
    panel.title = title;
    const webview = panel.webview;
    webview.html = summaryPanelHtml({
      nonce: createNonce(),
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.root, 'summary.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.root, 'summary.css')).toString(),
    });
    void this.remember(file);
    // A reused panel gets its page again: the previous page's handler goes, so a save or copy is handled once.
    this.handlers.get(panel)?.dispose();
    return new Promise<OpenedSummary>((resolve, reject) => {
      const sub = webview.onDidReceiveMessage(async (raw: unknown) => {
        if (!isPanelToHost(raw)) return;
        switch (raw.type) {
          case 'ready': {
            const msg: HostToPanel = { type: 'load', model, ...(reveal ? { reveal } : {}) };
            void webview.postMessage(msg);
            break;
          }
          case 'rendered':
            this.log.info(`summary ${file}: ${raw.rowCount} rows rendered in ${Math.round(raw.ms)} ms: ${raw.counts ?? ''}`);
            resolve({ file, rowCount: raw.rowCount, renderMs: raw.ms, counts: raw.counts ?? '' });
            break;
          case 'save': {
            const target = await vscode.window.showSaveDialog({
              defaultUri: vscode.Uri.file(path.join(path.dirname(file), raw.fileName)),
              filters: raw.format === 'csv' ? { CSV: ['csv'] } : { Markdown: ['md'] },
            });
            if (!target) return;
            await vscode.workspace.fs.writeFile(target, Buffer.from(raw.content, 'utf8'));
            const done: HostToPanel = { type: 'saved', format: raw.format, path: target.fsPath };
            void webview.postMessage(done);
            break;
          }
          case 'copy':
            await vscode.env.clipboard.writeText(raw.text);
            void vscode.window.setStatusBarMessage('Copied to the clipboard', 2000);
            break;
          case 'error':
            this.log.error(`summary panel: ${raw.message}`);
            reject(new Error(raw.message));
            break;
        }
      });
      this.handlers.set(panel, sub);
      panel.onDidDispose(() => {
        sub.dispose();
        this.handlers.delete(panel);
      });
    });
  }

  private async remember(file: string): Promise<void> {
    const last = this.context.workspaceState.get<string[]>(LAST_FILES_KEY, []).filter((f) => f !== file);
    await this.context.workspaceState.update(LAST_FILES_KEY, [file, ...last].slice(0, 10));
  }

  /** Brings panels back after a window reload: the most recent rows file is shown again. */
  serializer(): vscode.WebviewPanelSerializer {
    return {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel) => {
        const file = this.context.workspaceState.get<string[]>(LAST_FILES_KEY, [])[0];
        if (!file) {
          panel.dispose();
          return;
        }
        try {
          await this.show(file, panel);
        } catch (e) {
          this.log.error(`could not restore the summary of ${file}: ${(e as Error).message}`);
          panel.dispose();
        }
      },
    };
  }
}
