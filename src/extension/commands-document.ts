// The read-only "Show commands" documents (autobench-commands:): content comes from the server's cached analysis.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CANDIDATES_REQUEST, COMMANDS_SCHEME, type CandidatesParams, type CandidatesResult } from '../shared/protocol';
import type { AutobenchContext } from './context';

export class CommandsDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly ctx: AutobenchContext) {}

  static uriFor(target: vscode.Uri, framework?: string): vscode.Uri {
    const name = `${path.basename(target.path)}${framework ? `.${framework}` : ''}.commands.sh`;
    return vscode.Uri.from({ scheme: COMMANDS_SCHEME, path: `/${name}`, query: JSON.stringify({ uri: target.toString(), framework }) });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const client = this.ctx.client;
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

/** Registers the provider for the extension's lifetime and returns it (Show Candidates refreshes its documents). */
export function registerCommandsDocuments(ctx: AutobenchContext): CommandsDocuments {
  const provider = new CommandsDocuments(ctx);
  ctx.pushExtension(provider, vscode.workspace.registerTextDocumentContentProvider(COMMANDS_SCHEME, provider));
  return provider;
}
