// The Runs view in the Explorer: every autobench-runs/ folder of the workspace, newest first (plan, time, status,
// target, winners), with open summary / rows / server log, delete, and Compare runs over two of them.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { compareRunReports, comparisonMarkdown } from '../core/results/run-compare';
import { listRuns, type RunEntry } from '../core/results/run-list';
import { loadModel } from './summary-panel';

export const RUNS_VIEW_ID = 'autobench.runs';
export const RUNS_FOLDER = 'autobench-runs';

type Node = { kind: 'run'; run: RunEntry } | { kind: 'winner'; text: string };

/** The run folders of every workspace folder, newest first. */
export function workspaceRuns(): RunEntry[] {
  const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => path.join(f.uri.fsPath, RUNS_FOLDER));
  return roots.flatMap((r) => listRuns(r)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export class RunsView implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  /** Lists the runs again; returns what the view shows now (label and description per run). */
  refresh(): Array<{ label: string; description: string; dir: string }> {
    this.changed.fire();
    return this.getChildren().flatMap((n) => {
      if (n.kind !== 'run') return [];
      const item = this.getTreeItem(n);
      return [{ label: n.run.label, description: typeof item.description === 'string' ? item.description : '', dir: n.run.dir }];
    });
  }

  getChildren(node?: Node): Node[] {
    if (!node) return workspaceRuns().map((run) => ({ kind: 'run', run }));
    return node.kind === 'run' ? node.run.winners.map((text) => ({ kind: 'winner', text })) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'winner') return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    const r = node.run;
    const item = new vscode.TreeItem(r.label, r.winners.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = r.dir;
    item.description = `${r.status} · ${r.target}${r.simulated ? ' · simulated' : ''}`;
    item.tooltip = [`${r.runId} (${r.dir})`, `${r.status} on ${r.target}${r.simulated ? ' (SIMULATED engine)' : ''}`, ...r.winners].join('\n');
    item.contextValue = 'autobench.run';
    item.iconPath = new vscode.ThemeIcon(r.status === 'completed' ? 'pass' : r.status === 'running' ? 'sync' : 'warning');
    const rows = path.join(r.dir, 'rows.jsonl');
    if (existsSync(rows)) item.command = { title: 'Open Summary', command: 'autobench.openSummary', arguments: [rows] };
    return item;
  }
}

/** The run a command is about: a Runs view item, a run folder path, or one picked from the list. */
export async function runOf(arg: unknown, title: string): Promise<RunEntry | undefined> {
  if (typeof arg === 'object' && arg !== null && (arg as Node).kind === 'run') return (arg as { run: RunEntry }).run;
  const runs = workspaceRuns();
  if (typeof arg === 'string') return runs.find((r) => r.dir === arg);
  const picked = await vscode.window.showQuickPick(runs.map(runPick), { title, placeHolder: 'A run of this workspace' });
  return picked?.run;
}

export function runPick(run: RunEntry): vscode.QuickPickItem & { run: RunEntry } {
  return { label: run.label, description: `${run.status} · ${run.target}${run.simulated ? ' · simulated' : ''}`, detail: run.winners.join(' · ') || 'no verdict yet', run };
}

export async function openRunRows(arg: unknown): Promise<void> {
  const run = await runOf(arg, 'Open the rows of a run');
  if (run) await vscode.window.showTextDocument(vscode.Uri.file(path.join(run.dir, 'rows.jsonl')), { preview: true });
}

/** A run's server logs (servers/**.log): the only one, or a pick. */
export async function openRunLog(arg: unknown): Promise<void> {
  const run = await runOf(arg, "Open a run's server log");
  if (!run) return;
  const dir = path.join(run.dir, 'servers');
  const logs = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log')) : [];
  if (logs.length === 0) {
    void vscode.window.showInformationMessage(`Autobench: ${run.label} has no server log (no server was started).`);
    return;
  }
  const file = logs.length === 1 ? logs[0] : await vscode.window.showQuickPick(logs.sort(), { title: `Server logs of ${run.label}` });
  if (file) await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, file)), { preview: true });
}

export async function deleteRun(arg: unknown, view: RunsView): Promise<boolean> {
  const run = await runOf(arg, 'Delete a run');
  if (!run) return false;
  const ok = await vscode.window.showWarningMessage(`Delete ${run.label}?`, { modal: true, detail: `${run.dir} and everything in it (rows, logs, summaries) is deleted.` }, 'Delete');
  if (ok !== 'Delete') return false;
  rmSync(run.dir, { recursive: true, force: true });
  view.refresh();
  return true;
}

/** Two runs side by side: the runs given (two view items selected), else two picked; opens the comparison as Markdown. */
export async function compareRuns(args: unknown[]): Promise<string | undefined> {
  // Two view items (the clicked one and the selection), or two run folder paths (other extensions, tests).
  const known = workspaceRuns();
  const byDir = args.filter((a): a is string => typeof a === 'string').flatMap((d) => known.filter((r) => r.dir === d));
  const given = [...args.filter((a): a is { kind: 'run'; run: RunEntry } => typeof a === 'object' && a !== null && (a as Node).kind === 'run').map((a) => a.run), ...byDir];
  const many = args.find(Array.isArray) as Array<{ run?: RunEntry }> | undefined;
  let runs = many ? many.flatMap((n) => (n.run ? [n.run] : [])) : given;
  if (runs.length !== 2) {
    const picked = await vscode.window.showQuickPick(workspaceRuns().map(runPick), { title: 'Compare two runs (A = the older)', canPickMany: true });
    runs = (picked ?? []).map((p) => p.run);
  }
  if (runs.length !== 2) {
    if (runs.length) void vscode.window.showInformationMessage('Autobench: pick exactly two runs to compare.');
    return undefined;
  }
  const [a, b] = [...runs].sort((x, y) => x.createdAt.localeCompare(y.createdAt)) as [RunEntry, RunEntry];
  const text = comparisonMarkdown(compareRunReports(loadModel(path.join(a.dir, 'rows.jsonl')), loadModel(path.join(b.dir, 'rows.jsonl')), { a: a.label, b: b.label }));
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  await vscode.window.showTextDocument(doc, { preview: false });
  return text;
}

