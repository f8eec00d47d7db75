// Extension entry: builds the context (extension- and client-lifetime scopes), registers the command table and providers, starts the language server.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { registerCommandsDocuments } from './commands-document';
import { AutobenchContext } from './context';
import { createLanguageClient } from './language-client';
import { Runs } from './runs';
import { RUNS_FOLDER, RUNS_VIEW_ID, RunsView } from './runs-view';
import { affectsSettings, readServerSettings } from './settings';
import { registerStatusBar } from './status-bar';
import { SUMMARY_VIEW_TYPE, SummaryPanels } from './summary-panel';
import { refreshLenses } from './trust';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Autobench', { log: true });
  const ctx = new AutobenchContext(context, log, { createClient: createLanguageClient, serverSettings: readServerSettings });

  registerStatusBar(ctx);
  const documents = registerCommandsDocuments(ctx);
  ctx.pushExtension(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsSettings(e)) ctx.pushSettings();
    }),
    // Trusted now: the Run lenses come back, and the workspace's restricted settings (run target, hosts) apply.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: runs are enabled');
      ctx.pushSettings();
      refreshLenses(ctx.client);
    }),
  );
  if (!vscode.workspace.isTrusted) log.info('Restricted Mode: configs are checked; runs, help capture and target probes are disabled until the workspace is trusted');
  const summaries = new SummaryPanels(context, log);
  ctx.pushExtension(vscode.window.registerWebviewPanelSerializer(SUMMARY_VIEW_TYPE, summaries.serializer()));
  const runsView = new RunsView();
  // Two runs selected together are what Compare Runs compares.
  ctx.pushExtension(vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: runsView, canSelectMany: true, showCollapseAll: true }));
  // A run's manifest appears or changes (a run started, ended, was deleted): the view lists it again.
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${RUNS_FOLDER}/*/manifest.json`);
  ctx.pushExtension(watcher, watcher.onDidCreate(() => runsView.refresh()), watcher.onDidChange(() => runsView.refresh()), watcher.onDidDelete(() => runsView.refresh()));
  registerCommands({ ctx, documents, summaries, runs: new Runs(ctx, summaries, () => runsView.refresh()), runsView });

  await ctx.start();
  log.info('autobench language server started');
}
