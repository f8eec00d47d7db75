// Extension entry: builds the context (extension- and client-lifetime scopes), registers the command table and providers, starts the language server.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { registerCommandsDocuments } from './commands-document';
import { AutobenchContext } from './context';
import { createLanguageClient } from './language-client';
import { Runs } from './runs';
import { affectsSettings, readServerSettings } from './settings';
import { registerStatusBar } from './status-bar';
import { SUMMARY_VIEW_TYPE, SummaryPanels } from './summary-panel';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Autobench', { log: true });
  const ctx = new AutobenchContext(context, log, { createClient: createLanguageClient, serverSettings: readServerSettings });

  registerStatusBar(ctx);
  const documents = registerCommandsDocuments(ctx);
  ctx.pushExtension(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsSettings(e)) ctx.pushSettings();
    }),
  );
  const summaries = new SummaryPanels(context, log);
  ctx.pushExtension(vscode.window.registerWebviewPanelSerializer(SUMMARY_VIEW_TYPE, summaries.serializer()));
  registerCommands({ ctx, documents, summaries, runs: new Runs(ctx, summaries) });

  await ctx.start();
  log.info('autobench language server started');
}
