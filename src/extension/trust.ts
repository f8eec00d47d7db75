// Workspace Trust: in Restricted Mode the editor checks, explains and shows (diagnostics, hovers, completion, Show
// commands, summaries) but runs nothing and connects nowhere: runs, help capture and the target probe refuse with
// "trust this workspace to …", and the Run lenses give way to one that opens trust management.
import * as vscode from 'vscode';
import { CodeLensRequest, type LanguageClient } from 'vscode-languageclient/node';
import { COMMAND_IDS } from './command-ids';

/** VS Code's own command that opens the Workspace Trust editor. */
export const MANAGE_TRUST = 'workbench.trust.manage';
export const RESTRICTED_LENS_TITLE = 'Restricted Mode: trust the workspace to run';

/** What a refused command resolves with (callers and tests see why nothing happened). */
export interface Refusal {
  refused: 'untrusted';
  message: string;
}

/** The lenses that start a run: in Restricted Mode none is shown. */
const RUN_LENS_COMMANDS: ReadonlySet<string> = new Set([COMMAND_IDS.runBaseline, COMMAND_IDS.runCandidate, COMMAND_IDS.runAll]);

export function trustMessage(what: string): string {
  return `Autobench: trust this workspace to ${what}. In Restricted Mode Autobench checks configs but runs nothing and connects to no host.`;
}

/** Undefined when the workspace is trusted; else tells the user (with a button to trust it) and returns the refusal. */
export function refuseUntrusted(what: string, log?: vscode.LogOutputChannel): Refusal | undefined {
  if (vscode.workspace.isTrusted) return undefined;
  const message = trustMessage(what);
  log?.warn(message);
  const manage = 'Manage Workspace Trust';
  void vscode.window.showWarningMessage(message, manage).then((choice) => {
    if (choice === manage) void vscode.commands.executeCommand(MANAGE_TRUST);
  });
  return { refused: 'untrusted', message };
}

/** The server's lenses as shown: trusted, all of them; in Restricted Mode without the Run lenses, one trust lens in their place per framework. */
export function lensesForTrust(lenses: vscode.CodeLens[] | null | undefined, trusted: boolean): vscode.CodeLens[] | null | undefined {
  if (trusted || !lenses) return lenses;
  const out: vscode.CodeLens[] = [];
  for (const lens of lenses) {
    const command = lens.command?.command;
    if (command === undefined || !RUN_LENS_COMMANDS.has(command)) out.push(lens);
    else if (command === COMMAND_IDS.runBaseline) out.push(new vscode.CodeLens(lens.range, { title: RESTRICTED_LENS_TITLE, command: MANAGE_TRUST, tooltip: 'Runs start servers from this workspace\'s configs: trust the workspace to run them' }));
  }
  return out;
}

/** Trust granted: the editor asks the server's lenses again, so the Run lenses come back without a reload. */
export function refreshLenses(client: LanguageClient | undefined): void {
  const feature = client?.getFeature(CodeLensRequest.method);
  if (!feature) return;
  for (const doc of vscode.workspace.textDocuments) feature.getProvider(doc)?.onDidChangeCodeLensEmitter.fire();
}
