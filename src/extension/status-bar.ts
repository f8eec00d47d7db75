// The status bar item: which flag sources the last validation of the active document used, from the server's status notifications.
import * as vscode from 'vscode';
import { STATUS_NOTIFICATION, type StatusParams } from '../shared/protocol';
import { COMMAND_IDS } from './command-ids';
import type { AutobenchContext } from './context';
import { SETTINGS } from './settings-model';

function tooltip(s: StatusParams): vscode.MarkdownString {
  return new vscode.MarkdownString(
    [
      '**Autobench**: flags checked against',
      ...s.sources.map((x) => `- ${x}`),
      s.builtinOnly ? `\nNo \`--help\` snapshot applies: set \`autobench.${SETTINGS.helpDir.key}\` or a \`# autobench: help-dir=\` modeline.` : '',
      `\nLast validated ${new Date(s.validatedAt).toLocaleTimeString()} in ${s.ms} ms: ${s.errors} error(s), ${s.warnings} warning(s).`,
    ].join('\n'),
  );
}

/** The item lives as long as the extension; the notification handler as long as each client. */
export function registerStatusBar(ctx: AutobenchContext): void {
  const status = vscode.window.createStatusBarItem('autobench.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'Autobench flag sources';
  status.command = COMMAND_IDS.showCandidates;
  const lastStatus = new Map<string, StatusParams>();
  const show = (): void => {
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    const s = uri ? lastStatus.get(uri) : undefined;
    if (!s) {
      status.hide();
      return;
    }
    status.text = `$(checklist) ${s.label}`;
    status.tooltip = tooltip(s);
    status.show();
  };
  ctx.pushExtension(status, vscode.window.onDidChangeActiveTextEditor(show));
  ctx.onClientStart((client, scope) => {
    scope.push(
      client.onNotification(STATUS_NOTIFICATION, (s: StatusParams) => {
        lastStatus.set(s.uri, s);
        show();
      }),
    );
  });
}
