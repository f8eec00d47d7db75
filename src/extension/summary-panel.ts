// The summary panel in VS Code: a webview over the report model of a rows file, with save and copy handled by the host.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildReport } from '../core/results/report';
import { readRows, validateRows } from '../core/results/rows';
import type { ReportModel } from '../core/results/report-model';
import { createNonce } from '../webview/nonce';
import { summaryPanelHtml } from '../webview/panel-html';
import { isPanelToHost, type HostToPanel } from '../webview/protocol';

export const SUMMARY_VIEW_TYPE = 'autobench.summary';
const LAST_FILES_KEY = 'autobench.summary.lastFiles';

export interface OpenedSummary {
  file: string;
  rowCount: number;
  renderMs: number;
}

/** Reads a rows file into the report model; a bad line becomes a thrown error naming the file and line. */
export function loadModel(file: string): ReportModel {
  const read = readRows(readFileSync(file, 'utf8'), file);
  if (!read.ok) throw new Error(read.message);
  return buildReport(read.rows, { rowsFile: file, issues: validateRows(read.rows) });
}

export class SummaryPanels {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private get root(): vscode.Uri {
    return vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview');
  }

  /** Opens (or revives) a panel for `file`; resolves when the panel has rendered the rows. */
  show(file: string, existing?: vscode.WebviewPanel): Promise<OpenedSummary> {
    const model = loadModel(file);
    const panel =
      existing ??
      vscode.window.createWebviewPanel(SUMMARY_VIEW_TYPE, `Summary: ${path.basename(file)}`, vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [this.root],
      });
    panel.title = `Summary: ${path.basename(file)}`;
    const webview = panel.webview;
    webview.html = summaryPanelHtml({
      nonce: createNonce(),
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.root, 'summary.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.root, 'summary.css')).toString(),
    });
    void this.remember(file);
    return new Promise<OpenedSummary>((resolve, reject) => {
      const sub = webview.onDidReceiveMessage(async (raw: unknown) => {
        if (!isPanelToHost(raw)) return;
        switch (raw.type) {
          case 'ready': {
            const msg: HostToPanel = { type: 'load', model };
            void webview.postMessage(msg);
            break;
          }
          case 'rendered':
            this.log.info(`summary ${file}: ${raw.rowCount} rows rendered in ${Math.round(raw.ms)} ms`);
            resolve({ file, rowCount: raw.rowCount, renderMs: raw.ms });
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
      panel.onDidDispose(() => {
        sub.dispose();
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
