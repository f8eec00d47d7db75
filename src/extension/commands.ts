// The command table: every command id (command-ids.ts, the same as package.json) with its handler and whether it needs a
// trusted workspace, registered in one loop that checks trust (guarded).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VALIDATE_FILES_REQUEST, type ValidateFilesResult } from '../shared/protocol';
import { COMMAND_IDS, type CommandId } from './command-ids';
import { CommandsDocuments } from './commands-document';
import type { AutobenchContext } from './context';
import { pickCandidate, type CandidateAction } from './candidate-pick';
import { captureHelp } from './help-capture';
import { doctor } from './doctor';
import { optionsOf } from './run-inputs';
import { consentOf, selectTarget, setHfToken } from './run-setup';
import { revokeApprovals } from './secrets';
import { refuseUntrusted } from './trust';
import type { Runs } from './runs';
import { compareRuns, deleteRun, openRunLog, openRunRows, runPick, workspaceRuns, type RunsView } from './runs-view';
import type { SummaryPanels } from './summary-panel';

/** Command arguments come from anywhere (palette, lenses, menus, other extensions): handlers check them. */
export type CommandHandler = (...args: unknown[]) => unknown;

export interface CommandDeps {
  ctx: AutobenchContext;
  documents: CommandsDocuments;
  summaries: SummaryPanels;
  runs: Runs;
  runsView: RunsView;
}

/** `opts.reveal`: a section of the page to open at ('charts-section'). */
async function openSummary({ ctx, summaries }: CommandDeps, arg: unknown, opts?: unknown): Promise<unknown> {
  const reveal = typeof opts === 'object' && opts !== null && typeof (opts as { reveal?: unknown }).reveal === 'string' ? (opts as { reveal: string }).reveal : undefined;
  let file = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : undefined;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (!file && active?.scheme === 'file' && active.fsPath.endsWith('.jsonl')) file = active.fsPath;
  if (!file) file = await pickRowsFile();
  if (!file) return undefined;
  try {
    return await summaries.show(file, undefined, reveal);
  } catch (e) {
    const message = `Autobench: cannot open the summary of ${file}: ${(e as Error).message}`;
    ctx.log.error(message);
    void vscode.window.showErrorMessage(message);
    return undefined;
  }
}

/** The workspace's runs first (newest on top), then "Browse…" for any rows file. */
async function pickRowsFile(): Promise<string | undefined> {
  const browse = { label: '$(folder-opened) Browse…', description: 'a rows .jsonl file anywhere' };
  const runs = workspaceRuns().map(runPick);
  const picked = runs.length ? await vscode.window.showQuickPick([...runs, browse], { title: 'Open Benchmark Summary', placeHolder: 'A run of this workspace, or browse for a rows file' }) : browse;
  if (!picked) return undefined;
  if ('run' in picked) return path.join(picked.run.dir, 'rows.jsonl');
  const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Result rows': ['jsonl'] }, title: 'Open benchmark result rows' });
  return chosen?.[0]?.fsPath;
}

/** Opens the "Show commands" listing beside the config; resolves with its document (undefined without a config). */
async function showListing(documents: CommandsDocuments, uriArg: unknown, framework: unknown): Promise<vscode.TextDocument | undefined> {
  const target = typeof uriArg === 'string' ? vscode.Uri.parse(uriArg) : uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
  if (!target) {
    void vscode.window.showInformationMessage('Open a cookbook config to list its candidate commands.');
    return undefined;
  }
  const uri = CommandsDocuments.uriFor(target, typeof framework === 'string' ? framework : undefined);
  documents.refresh(uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  return doc;
}

async function showCandidates(documents: CommandsDocuments, uriArg: unknown, framework: unknown): Promise<string | undefined> {
  return (await showListing(documents, uriArg, framework))?.uri.toString();
}

function candidatePick(d: CommandDeps, uri: unknown, fw: unknown, opts: unknown): Promise<unknown> {
  const given = typeof opts === 'object' && opts !== null ? (opts as { candidate?: string; action?: CandidateAction }) : undefined;
  return pickCandidate(
    {
      ctx: d.ctx,
      showListing: (u, f) => showListing(d.documents, u, f),
      // Through the command, so that its trust check applies.
      run: async (u, f, candidate) => vscode.commands.executeCommand(COMMAND_IDS.runCandidate, u.toString(), f, { ...optionsOf(opts), candidate }),
    },
    uri,
    fw,
    given,
  );
}

async function validateWorkspace(ctx: AutobenchContext): Promise<ValidateFilesResult | undefined> {
  const client = ctx.client;
  if (!client) return undefined;
  const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', '**/node_modules/**', 10000);
  const res = await client.sendRequest<ValidateFilesResult>(VALIDATE_FILES_REQUEST, { uris: files.map((f) => f.toString()) });
  const msg = `Autobench: ${res.configs} config(s) checked: ${res.errors} error(s), ${res.warnings} warning(s).`;
  ctx.log.info(msg);
  void vscode.window.showInformationMessage(msg);
  return res;
}

/** A command's handler, and what it would do that Restricted Mode forbids (it runs or connects): the refusal's words. */
export interface CommandEntry {
  run: CommandHandler;
  /** Set: refused in an untrusted workspace with "trust this workspace to <trust>" (trust.ts), before the handler runs. */
  trust?: string;
}

const plain = (run: CommandHandler): CommandEntry => ({ run });
const trusted = (trust: string, run: CommandHandler): CommandEntry => ({ run, trust });

/** Every command: the Record type makes a missing or unknown id a compile error. */
export function commandTable(d: CommandDeps): Record<CommandId, CommandEntry> {
  return {
    [COMMAND_IDS.validateWorkspace]: plain(() => validateWorkspace(d.ctx)),
    [COMMAND_IDS.showCandidates]: plain((uri, framework) => showCandidates(d.documents, uri, framework)),
    // Its Run action goes through runCandidate's entry, so it is refused there.
    [COMMAND_IDS.pickCandidate]: plain((uri, framework, opts) => candidatePick(d, uri, framework, opts)),
    [COMMAND_IDS.openSummary]: plain((arg, opts) => openSummary(d, arg, opts)),
    [COMMAND_IDS.runBaseline]: trusted('run its configs', (uri, fw, opts) => d.runs.start(uri, fw, { kind: 'baseline' }, optionsOf(opts))),
    [COMMAND_IDS.runCandidate]: trusted('run its configs', (uri, fw, opts) => d.runs.start(uri, fw, { kind: 'candidate' }, optionsOf(opts))),
    [COMMAND_IDS.runAll]: trusted('run its configs', (uri, fw, opts) => d.runs.start(uri, fw, { kind: 'all' }, optionsOf(opts))),
    [COMMAND_IDS.cancelRun]: plain(() => d.runs.cancel()),
    [COMMAND_IDS.selectTarget]: trusted('choose where it runs', () => selectTarget(d.ctx.log)),
    [COMMAND_IDS.setHfToken]: plain(() => setHfToken(d.ctx.extension.secrets)),
    [COMMAND_IDS.captureHelp]: trusted('capture --help texts from a target', (uri, opts) => captureHelp(d.ctx, uri, optionsOf(opts))),
    [COMMAND_IDS.checkTarget]: trusted('check a run target (doctor)', (uri, opts) => doctor(d.ctx, uri, optionsOf(opts))),
    [COMMAND_IDS.refreshRuns]: plain(() => d.runsView.refresh()),
    [COMMAND_IDS.compareRuns]: plain((...args) => compareRuns(args)),
    [COMMAND_IDS.openRunRows]: plain((run) => openRunRows(run)),
    [COMMAND_IDS.openRunLog]: plain((run) => openRunLog(run)),
    [COMMAND_IDS.deleteRun]: plain((run) => deleteRun(run, d.runsView)),
    [COMMAND_IDS.rerunRun]: trusted('run its runs again', (run, opts) => d.runs.again(run, 'rerun', optionsOf(opts))),
    [COMMAND_IDS.resumeRun]: trusted('resume its runs', (run, opts) => d.runs.again(run, 'resume', optionsOf(opts))),
    [COMMAND_IDS.revokeSecretApprovals]: plain((given) => revokeApprovals(consentOf(d.ctx), given)),
  };
}

/** The handler VS Code calls: the one place Workspace Trust is checked (a trusted-only entry refuses first). */
export function guarded(entry: CommandEntry, log: vscode.LogOutputChannel): CommandHandler {
  const { run, trust } = entry;
  if (trust === undefined) return run;
  return (...args) => refuseUntrusted(trust, log) ?? run(...args);
}

/** Registers the table for the extension's lifetime (commands outlive client restarts). */
export function registerCommands(d: CommandDeps): void {
  for (const [id, entry] of Object.entries(commandTable(d))) d.ctx.pushExtension(vscode.commands.registerCommand(id, guarded(entry, d.ctx.log)));
}
