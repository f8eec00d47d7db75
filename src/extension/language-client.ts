// Builds the language client for the autobench server (dist/server.js over IPC), with the settings it starts with.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { LANGUAGE_SERVER_ID } from '../shared/protocol';
import type { AutobenchContext, DisposalScope } from './context';
import { readServerSettings } from './settings';
import { lensesForTrust } from './trust';

export function createLanguageClient(ctx: AutobenchContext, scope: DisposalScope): LanguageClient {
  const module = ctx.extension.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
  };
  // --help snapshots are .txt files: the server drops its cached snapshots when one changes.
  const helpWatcher = vscode.workspace.createFileSystemWatcher('**/*.txt');
  scope.push(helpWatcher);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    initializationOptions: readServerSettings(),
    outputChannel: ctx.log,
    synchronize: { fileEvents: helpWatcher },
    // Restricted Mode: no Run lens (trust.ts); asked each time, so trusting the workspace brings them back.
    middleware: {
      provideCodeLenses: async (document, token, next) => lensesForTrust(await next(document, token), vscode.workspace.isTrusted),
    },
  };
  return new LanguageClient(LANGUAGE_SERVER_ID, 'Autobench', serverOptions, clientOptions);
}
