// "Run baseline / candidate… / all" and "Cancel": the runner driven from the editor, with progress, cancel, the live panel and the summary.
// The run itself executes in a worker process (run-worker.ts): on the extension host's busy event loop the load
// client's timestamps came out late (p50 TTFT 181 ms where the CLI measured 44-48 ms for the same trial).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Position } from '../core/config/finding';
import { problemPosition } from '../core/editor/problem-line';
import { runNotice, type RunNotice } from '../core/results/outcome-text';
import { PlanError, type RunEvent, type RunResult } from '../runner';
import { PLAN_REQUEST, type PlanFinding, type PlanResult } from '../shared/protocol';
import type { AutobenchContext } from './context';
import { LivePanel } from './live-panel';
import { askHostKey, helpDirOf, simBinDir, slurmOptionsOf, targetOf, uriOf, workspaceDir, type RunCommandOptions } from './run-inputs';
import { runPlanInWorker, type WorkerRunRequest } from './run-worker-client';
import { RUNS_FOLDER, runOf } from './runs-view';
import { consentOf } from './run-setup';
import { secretsForRun } from './secrets';
import type { SummaryPanels } from './summary-panel';

/** What a waited-for run command returns: the runner's result and how many trial rows the live panel showed. */
export type EditorRunResult = RunResult & { liveRows: number; notice: RunNotice; summaryCounts: string; problemAt?: Position; goTo?: vscode.Command; secrets: RunSecretNames };

/** The run's secrets by name only: the questions asked, what went to the target and what did not. */
export interface RunSecretNames {
  asked: string[];
  sent: string[];
  withheld: string[];
}

/** The run-end warning's "Go to Line": opens the plan with the cursor on the problem. */
function goToCommand(uri: vscode.Uri, at: Position): vscode.Command {
  const pos = new vscode.Position(at.line, at.character);
  return { title: 'Go to Line', command: 'vscode.open', arguments: [uri, { selection: new vscode.Range(pos, pos), preview: false }] };
}

/** Opens the plan with the cursor on a problem's line (what the run-end warning's "Go to Line" does). */
export async function revealAt(uri: vscode.Uri, at: Position): Promise<vscode.TextEditor> {
  const pos = new vscode.Position(at.line, at.character);
  const editor = await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: false });
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

/** What one run measures: the plan file, its frameworks and candidates, where its rows go, and whether it continues a run there. */
interface RunSpec {
  uri: vscode.Uri;
  frameworks: string[];
  candidates?: string[];
  outDir: string;
  resume: boolean;
  /** "sglang baseline", "resume demo.plan · 2026-12-02 04:02:13": the panel's and the log's name for it. */
  what: string;
}

export type Which = { kind: 'baseline' } | { kind: 'candidate' } | { kind: 'all' };

const stamp = (): string => new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');

export class Runs {
  private running: AbortController | undefined;

  constructor(
    private readonly ctx: AutobenchContext,
    private readonly summaries: SummaryPanels,
    /** Called when a run ends (the Runs view lists it). */
    private readonly onRunEnd: () => void = () => undefined,
  ) {}

  /** The same as the progress notification's Cancel: servers are torn down and finished rows kept. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  private async pickCandidate(uri: vscode.Uri, framework: string): Promise<string | undefined> {
    const client = this.ctx.client;
    if (!client) throw new Error('the autobench language server is not running');
    const plan = await client.sendRequest<PlanResult>(PLAN_REQUEST, { uri: uri.toString() });
    const cands = plan.frameworks[framework] ?? [];
    if (!cands.length) throw new Error(`${framework} has no candidates in ${path.basename(uri.fsPath)} (fix its problems first)`);
    const picked = await vscode.window.showQuickPick(
      cands.map((c) => ({ label: c.id, description: c.overrides || 'base flags', detail: c.command, id: c.id })),
      { title: `Run a ${framework} candidate`, placeHolder: 'Candidate to run', matchOnDescription: true },
    );
    return picked?.id;
  }

  /** The errors a run of the framework meets, from the language server's analysis (what the Run lenses count). */
  private async errorsOf(uri: vscode.Uri, framework: string): Promise<PlanFinding[]> {
    const client = this.ctx.client;
    if (!client) return [];
    const plan = await client.sendRequest<PlanResult>(PLAN_REQUEST, { uri: uri.toString() });
    return plan.errors?.[framework] ?? [];
  }

  /** A framework with errors: say what a run of it will skip, and run only when asked to. */
  private async confirmDespiteErrors(uri: vscode.Uri, framework: string): Promise<boolean> {
    const errors = await this.errorsOf(uri, framework).catch(() => []);
    const first = errors[0];
    if (!first) return true;
    const runAnyway = 'Run Anyway';
    const goTo = 'Go to Error';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    const choice = await vscode.window.showWarningMessage(
      `${framework} has ${errors.length} error${errors.length === 1 ? '' : 's'} in ${path.basename(uri.fsPath)}`,
      { modal: true, detail: `Line ${first.line + 1}: ${first.message}${more}.\n\nA run skips the candidates they affect.` },
      runAnyway,
      goTo,
    );
    if (choice === goTo) await revealAt(uri, first);
    return choice === runAnyway;
  }

  async start(uriArg: unknown, fwArg: unknown, which: Which, opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
    const uri = uriOf(uriArg);
    const framework = typeof fwArg === 'string' ? fwArg : undefined;
    if (!uri || !framework) {
      void vscode.window.showInformationMessage('Autobench: use the Run lenses above a framework in a plan or config.');
      return undefined;
    }
    if (this.running) {
      void vscode.window.showWarningMessage('Autobench: a run is already in progress; cancel it from its notification first.');
      return undefined;
    }
    let candidates: string[] | undefined;
    try {
      if (which.kind === 'baseline') candidates = ['baseline'];
      else if (which.kind === 'candidate') {
        const id = opts.candidate ?? (await this.pickCandidate(uri, framework));
        if (!id) return undefined;
        candidates = [id];
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`Autobench: ${(e as Error).message}`);
      return undefined;
    }
    if (opts.ifErrors !== 'run' && !(await this.confirmDespiteErrors(uri, framework))) return undefined;
    // The run reads the file: unsaved edits would silently not be what runs, so save them first.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open?.isDirty && !(await open.save())) {
      void vscode.window.showWarningMessage(`Autobench: save ${path.basename(uri.fsPath)} before running it.`);
      return undefined;
    }
    const what = candidates ? candidates.join(',') : 'all';
    const outDir = path.join(workspaceDir(uri), RUNS_FOLDER, `${path.basename(uri.fsPath).replace(/\.ya?ml$/i, '')}-${framework}-${what}-${stamp()}`);
    return this.launch({ uri, frameworks: [framework], ...(candidates ? { candidates } : {}), outDir, resume: false, what: `${framework} ${what}` }, opts);
  }

  /**
   * A run of the Runs view again: `rerun` measures the plan it ran (its plan.yaml) with the same frameworks and
   * candidates into a new folder; `resume` continues it in its own folder, keeping every finished trial.
   */
  async again(runArg: unknown, mode: 'rerun' | 'resume', opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
    const run = await runOf(runArg, mode === 'rerun' ? 'Run a run again' : 'Resume a run');
    if (!run) return undefined;
    if (this.running) {
      void vscode.window.showWarningMessage('Autobench: a run is already in progress; cancel it from its notification first.');
      return undefined;
    }
    const uri = vscode.Uri.file(path.join(run.dir, 'plan.yaml'));
    const outDir = mode === 'resume' ? run.dir : path.join(path.dirname(run.dir), `${run.plan}-${mode}-${stamp()}`);
    const target = opts.target ?? (run.target !== '?' ? run.target : undefined);
    return this.launch({ uri, ...run.scope, outDir, resume: mode === 'resume', what: `${mode} ${run.label}` }, { ...opts, ...(target ? { target } : {}) });
  }

  private launch(spec: RunSpec, opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
    const run = this.execute(spec, opts);
    if (opts.wait) return run;
    void run;
    return Promise.resolve(undefined);
  }

  private async execute(spec: RunSpec, opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
    const { uri, outDir, what } = spec;
    const ws = workspaceDir(uri);
    const target = targetOf(opts);
    const ac = new AbortController();
    this.running = ac;
    const live = new LivePanel(`Run: ${what}`);
    try {
      const helpDir = helpDirOf(ws);
      const simBin = simBinDir(this.ctx.extension.extensionPath);
      const slurm = slurmOptionsOf(target);
      const simulated = target === 'sim' || slurm.simOnNodes === true;
      const planText = readFileSync(uri.fsPath, 'utf8');
      // Each secret goes to the target only if the user approved it (asked here, before anything starts).
      // A test answers in place of the modal (VS Code's test host refuses dialogs); no other caller can.
      const testAnswer = this.ctx.extension.extensionMode === vscode.ExtensionMode.Test ? opts.secretAnswer : undefined;
      const secrets = await secretsForRun(consentOf(this.ctx), target, planText, testAnswer);
      const request: WorkerRunRequest = {
        options: {
          planText,
          planPath: uri.fsPath,
          target,
          outDir,
          frameworks: spec.frameworks,
          ...(spec.candidates ? { candidates: spec.candidates } : {}),
          ...(spec.resume ? { resume: true } : {}),
          // The editor's snapshot resolution: modeline > version_manifest > this setting.
          ...(helpDir ? { settingHelpDir: helpDir } : {}),
          ...(simBin ? { simBinDir: simBin } : {}),
          ...(opts.simSpeed ? { simSpeed: opts.simSpeed } : {}),
          ...(opts.repeats !== undefined ? { repeats: opts.repeats } : {}),
          ...slurm,
          secretEnv: secrets.serverEnv,
        },
        // Approved values only (read here: SecretStorage is the extension's); the worker gets them over IPC and nothing else.
        secrets: secrets.send,
        hostKeyPrompt: askHostKey,
        renderHtml: true,
      };
      // runPlanInWorker starts it without secret variables: a `local` or `sim` server cannot inherit a value nobody approved.
      const worker = { file: path.join(this.ctx.extension.extensionPath, 'dist', 'run-worker.js') };
      live.setHeader(`${what} on ${target}${slurm.maxParallel ? ` (up to ${slurm.maxParallel} jobs at once)` : ''}${simulated ? ' (SIMULATED engine: no real performance numbers)' : ''} → ${outDir}`);
      this.ctx.log.info(`run ${what} on ${target} -> ${outDir}`);
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Autobench ${what}${simulated ? ' (simulated)' : ''}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => ac.abort());
          let planned = 0;
          const onEvent = (e: RunEvent) => {
            live.onEvent(e);
            const msg = this.describe(e);
            if (e.type === 'run-start') planned = Math.max(1, e.plannedTrials - e.finishedTrials);
            if (e.type === 'log') this.ctx.log[e.level](e.message);
            if (msg) progress.report({ message: msg, ...(e.type === 'trial-end' && planned ? { increment: 100 / planned } : {}) });
          };
          return runPlanInWorker(worker, request, { onEvent, signal: ac.signal, onOutput: (line) => this.ctx.log.warn(`run worker: ${line}`) });
        },
      );
      // Waiting callers (tests) learn what the page showed; nobody else waits for the webview.
      const liveRows = opts.wait ? await live.settled(5000) : 0;
      this.onRunEnd();
      const notice = runNotice(result.status, result.reason, result.report?.outcome, result.simulated);
      live.setOutcome(notice.text.replace(/^Autobench: /, ''), notice.level);
      this.ctx.log[notice.level === 'info' ? 'info' : 'warn'](`run ${result.runId} (${result.status}) in ${result.outDir}: ${notice.text.replace(/^Autobench: /, '')}`);
      for (const c of result.report?.outcome.candidates ?? []) if (c.kind !== 'measured') this.ctx.log.warn(`  ${c.framework} ${c.candidate} ${c.kind}: ${c.reason}`);
      const shown = result.rows.length > 0 ? await this.summaries.show(path.join(result.outDir, 'rows.jsonl')) : undefined;
      const problemAt = notice.problem ? problemPosition(readFileSync(uri.fsPath, 'utf8'), notice.problem.framework, notice.problem.reason) : undefined;
      const goTo = problemAt ? goToCommand(uri, problemAt) : undefined;
      this.tell(notice, goTo);
      const named = { asked: secrets.asked, sent: Object.keys(secrets.send), withheld: secrets.withheld };
      return { ...result, liveRows, notice, summaryCounts: shown?.counts ?? '', secrets: named, ...(problemAt ? { problemAt } : {}), ...(goTo ? { goTo } : {}) };
    } catch (e) {
      const err = e as Error;
      const detail = e instanceof PlanError ? `${err.message}: ${e.problems.join('; ')}` : err.message;
      this.ctx.log.error(`run ${what}: ${detail}`);
      void vscode.window.showErrorMessage(`Autobench: the run could not start: ${detail}`);
      if (opts.wait) throw err;
      return undefined;
    } finally {
      this.running = undefined;
    }
  }

  /** The run's outcome as a notification; when nothing was measured, its "Go to Line" runs `goTo` (the plan at the first problem). */
  private tell(notice: RunNotice, goTo: vscode.Command | undefined): void {
    if (notice.level === 'info') {
      void vscode.window.showInformationMessage(notice.text);
      return;
    }
    void vscode.window.showWarningMessage(notice.text, ...(goTo ? [goTo.title] : [])).then((choice) => {
      if (goTo && choice === goTo.title) void vscode.commands.executeCommand(goTo.command, ...((goTo.arguments ?? []) as unknown[]));
    });
  }

  /** The progress notification's line: framework / candidate / trial. */
  private describe(e: RunEvent): string | undefined {
    switch (e.type) {
      case 'preflight':
        return e.status === 'start' ? `preflight${e.framework ? ` ${e.framework}` : ''}: ${e.step}` : undefined;
      case 'candidate-start':
        return `${e.framework} ${e.candidateId} (${e.index + 1}/${e.of}): starting the server`;
      case 'server':
        return e.state === 'waiting' ? `${e.framework} ${e.candidateId}: waiting for the server` : undefined;
      case 'trial-start':
        return `${e.framework} ${e.candidateId} · ${e.scenario} @ ${e.rate === 'inf' ? 'max rate' : `${e.rate.toFixed(2)} req/s`} (trial ${e.index}/${e.of})`;
      case 'job':
        return `${e.framework} ${e.candidateId}: Slurm job ${e.jobId} ${e.state}${e.state === 'PENDING' && e.reason ? ` (${e.reason})` : e.node ? ` on ${e.node}` : ''}`;
      case 'run-end':
        return `done: ${e.status}`;
      default:
        return undefined;
    }
  }
}
