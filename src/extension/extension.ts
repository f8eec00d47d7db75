// Extension entry: starts the autobench language server for YAML configs and owns its lifetime.
import * as path from 'node:path';
import type { ExtensionContext } from 'vscode';
import { workspace, window } from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { LANGUAGE_SERVER_ID, type ServerSettings } from '../shared/protocol';

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const log = window.createOutputChannel('Autobench', { log: true });
  context.subscriptions.push(log);
  const module = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
  };
  const config = workspace.getConfiguration('autobench');
  const initializationOptions: ServerSettings = { helpDir: config.get<string>('helpDir', '') };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'yaml' }, { scheme: 'untitled', language: 'yaml' }],
    initializationOptions,
    outputChannel: log,
  };
  client = new LanguageClient(LANGUAGE_SERVER_ID, 'Autobench', serverOptions, clientOptions);
  await client.start();
  log.info('autobench language server started');
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
