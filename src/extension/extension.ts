// Extension entry: starts the autobench language server, registers commands, and shows what the server reports.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import {
  CANDIDATES_REQUEST,
  COMMANDS_SCHEME,
  DEFAULT_SETTINGS,
  LANGUAGE_SERVER_ID,
  SETTINGS_NOTIFICATION,
  STATUS_NOTIFICATION,
  VALIDATE_FILES_REQUEST,
  type CandidatesParams,
  type CandidatesResult,
  type ServerSettings,
  type StatusParams,
  type ValidateFilesResult,
} from '../shared/protocol';

import { Runs } from './runs';
import { SUMMARY_VIEW_TYPE, SummaryPanels } from './summary-panel';

let client: LanguageClient | undefined;

/** Settings as the server needs them, resolved here so the server never reads globals. */
function readSettings(): ServerSettings {
  const c = vscode.workspace.getConfiguration('autobench');
  return {
    helpDir: c.get<string>('helpDir', DEFAULT_SETTINGS.helpDir),
    include: c.get<string[]>('configs.include', DEFAULT_SETTINGS.include),
    debounceMs: c.get<number>('diagnostics.debounceMs', DEFAULT_SETTINGS.debounceMs),
  };
}

/** The read-only "Show commands" documents: content comes from the server's cached analysis. */
class CommandsProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  static uriFor(target: vscode.Uri, framework?: string): vscode.Uri {
    const name = `${path.basename(target.path)}${framework ? `.${framework}` : ''}.commands.sh`;
    return vscode.Uri.from({ scheme: COMMANDS_SCHEME, path: `/${name}`, query: JSON.stringify({ uri: target.toString(), framework }) });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (!client) return '# the autobench language server is not running\n';
    const params = JSON.parse(uri.query) as CandidatesParams;
    const res = await client.sendRequest<CandidatesResult>(CANDIDATES_REQUEST, params);
    return res.content;
  }

  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Autobench', { log: true });
  context.subscriptions.push(log);

  const module = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    initializationOptions: readSettings(),
    outputChannel: log,
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.txt') },
  };
  client = new LanguageClient(LANGUAGE_SERVER_ID, 'Autobench', serverOptions, clientOptions);

  const status = vscode.window.createStatusBarItem('autobench.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'Autobench flag sources';
  status.command = 'autobench.showCandidates';
  const lastStatus = new Map<string, StatusParams>();
  const showStatus = () => {
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    const s = uri ? lastStatus.get(uri) : undefined;
    if (!s) {
      status.hide();
      return;
    }
    const shown = s.builtinOnly ? 'built-in flag table' : s.sources.filter((x) => !x.endsWith('built-in table')).join(' · ');
    status.text = `$(checklist) ${shown}`;
    const md = new vscode.MarkdownString(
      [
        '**Autobench**: flags checked against',
        ...s.sources.map((x) => `- ${x}`),
        s.builtinOnly ? '\nNo `--help` snapshot applies: set `autobench.helpDir` or a `# autobench: help-dir=` modeline.' : '',
        `\nLast validated ${new Date(s.validatedAt).toLocaleTimeString()} in ${s.ms} ms: ${s.errors} error(s), ${s.warnings} warning(s).`,
      ].join('\n'),
    );
    status.tooltip = md;
    status.show();
  };

  const provider = new CommandsProvider();
  context.subscriptions.push(
    status,
    provider,
    vscode.workspace.registerTextDocumentContentProvider(COMMANDS_SCHEME, provider),
    vscode.window.onDidChangeActiveTextEditor(showStatus),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('autobench')) void client?.sendNotification(SETTINGS_NOTIFICATION, readSettings());
    }),
  );

  const summaries = new SummaryPanels(context, log);
  context.subscriptions.push(vscode.window.registerWebviewPanelSerializer(SUMMARY_VIEW_TYPE, summaries.serializer()));

  const commands: Record<string, (...args: unknown[]) => unknown> = {
    'autobench.openSummary': async (arg?: unknown) => {
      let file = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : undefined;
      const active = vscode.window.activeTextEditor?.document.uri;
      if (!file && active?.scheme === 'file' && active.fsPath.endsWith('.jsonl')) file = active.fsPath;
      if (!file) {
        const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Result rows': ['jsonl'] }, title: 'Open benchmark result rows' });
        file = picked?.[0]?.fsPath;
      }
      if (!file) return undefined;
      try {
        return await summaries.show(file);
      } catch (e) {
        const message = `Autobench: cannot open the summary of ${file}: ${(e as Error).message}`;
        log.error(message);
        void vscode.window.showErrorMessage(message);
        return undefined;
      }
    },
    'autobench.showCandidates': async (uriArg?: unknown, framework?: unknown) => {
      const target = typeof uriArg === 'string' ? vscode.Uri.parse(uriArg) : uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        void vscode.window.showInformationMessage('Open a cookbook config to list its candidate commands.');
        return;
      }
      const uri = CommandsProvider.uriFor(target, typeof framework === 'string' ? framework : undefined);
      provider.refresh(uri);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      return uri.toString();
    },
    'autobench.validateWorkspace': async () => {
      if (!client) return undefined;
      const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', '**/node_modules/**', 10000);
      const res = await client.sendRequest<ValidateFilesResult>(VALIDATE_FILES_REQUEST, { uris: files.map((f) => f.toString()) });
      const msg = `Autobench: ${res.configs} config(s) checked: ${res.errors} error(s), ${res.warnings} warning(s).`;
      log.info(msg);
      void vscode.window.showInformationMessage(msg);
      return res;
    },
  };
  const runs = new Runs(context, log, summaries, () => client, () => void client?.sendNotification(SETTINGS_NOTIFICATION, readSettings()));
  Object.assign(commands, runs.commands());
  for (const [id, fn] of Object.entries(commands)) context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  await client.start();
  context.subscriptions.push(
    client.onNotification(STATUS_NOTIFICATION, (s: StatusParams) => {
      lastStatus.set(s.uri, s);
      showStatus();
    }),
  );
  log.info('autobench language server started');
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
