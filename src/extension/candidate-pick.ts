// The "N candidates" lens: a quick pick of the framework's candidates (invalid ones marked with why), then what to do
// with the one picked: open it in the commands listing, run it, or copy its exact command.
import * as vscode from 'vscode';
import { PLAN_REQUEST, type PlanCandidate, type PlanResult } from '../shared/protocol';
import type { AutobenchContext } from './context';
import { uriOf } from './run-inputs';

export type CandidateAction = 'open' | 'run' | 'copy';

export interface PickDeps {
  ctx: AutobenchContext;
  /** Opens the "Show commands" listing of the framework; resolves with its document. */
  showListing: (uri: vscode.Uri, framework: string) => Promise<vscode.TextDocument | undefined>;
  run: (uri: vscode.Uri, framework: string, candidate: string) => Promise<unknown>;
}

async function candidatesOf(ctx: AutobenchContext, uri: vscode.Uri, framework: string): Promise<PlanCandidate[]> {
  const client = ctx.client;
  if (!client) throw new Error('the autobench language server is not running');
  const plan = await client.sendRequest<PlanResult>(PLAN_REQUEST, { uri: uri.toString() });
  return plan.frameworks[framework] ?? [];
}

/** `given`: the candidate id and action when a caller (a test, a keybinding) already knows them. */
export async function pickCandidate(d: PickDeps, uriArg: unknown, fwArg: unknown, given?: { candidate?: string; action?: CandidateAction }): Promise<{ candidate: string; action: CandidateAction; result?: unknown } | undefined> {
  const uri = uriOf(uriArg);
  const framework = typeof fwArg === 'string' ? fwArg : undefined;
  if (!uri || !framework) return undefined;
  const cands = await candidatesOf(d.ctx, uri, framework);
  const chosen =
    cands.find((c) => c.id === given?.candidate) ??
    (
      await vscode.window.showQuickPick(
        cands.map((c) => ({ label: `${c.problems ? '$(error) ' : ''}${c.id}`, description: c.problems ? `invalid: ${c.problems[0] ?? ''}` : c.overrides || 'base flags', detail: c.command, c })),
        { title: `${framework}: ${cands.length} candidate${cands.length === 1 ? '' : 's'}`, placeHolder: 'A candidate to open, run or copy', matchOnDescription: true, matchOnDetail: true },
      )
    )?.c;
  if (!chosen) return undefined;
  const actions: Array<vscode.QuickPickItem & { action: CandidateAction }> = [
    { label: '$(go-to-file) Open in the commands listing', action: 'open' },
    // Restricted Mode runs nothing: no Run entry (runs.ts would refuse it anyway).
    ...(vscode.workspace.isTrusted ? [{ label: `$(play) Run ${chosen.id}`, description: chosen.problems ? 'it has errors: the run skips it' : '', action: 'run' as const }] : []),
    { label: '$(copy) Copy the command', description: chosen.command, action: 'copy' },
  ];
  const action = given?.action ?? (await vscode.window.showQuickPick(actions, { title: `${framework} ${chosen.id}` }))?.action;
  if (!action) return undefined;
  if (action === 'copy') {
    await vscode.env.clipboard.writeText(chosen.command);
    void vscode.window.setStatusBarMessage(`Copied the command of ${framework} ${chosen.id}`, 2000);
    return { candidate: chosen.id, action };
  }
  if (action === 'run') return { candidate: chosen.id, action, result: await d.run(uri, framework, chosen.id) };
  const doc = await d.showListing(uri, framework);
  const line = doc?.getText().split('\n').findIndex((l) => l === `# ${chosen.id}` || l.startsWith(`# ${chosen.id}:`) || l.startsWith(`# ${chosen.id} —`)) ?? -1;
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
  if (editor && line >= 0) {
    const pos = new vscode.Position(line, 0);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.AtTop);
  }
  return { candidate: chosen.id, action };
}
