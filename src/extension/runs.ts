// "Run baseline / candidate… / all" and "Capture help snapshots": the runner driven from the editor, with progress, cancel and the summary.
import { accessSync, chmodSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { processEnvSecrets, type HostKeyPrompt, type SecretSource } from '../exec';
import { splitConfigLine } from '../exec/ssh-config';
import { captureHelpSnapshots, PlanError, runPlan, type RunEvent, type RunOptions, type RunResult } from '../runner';
import { PLAN_REQUEST, type PlanResult } from '../shared/protocol';
import { LivePanel } from './live-panel';
import type { SummaryPanels } from './summary-panel';

export const HF_TOKEN_KEY = 'autobench.hfToken';

/** Extra arguments tests (and other extensions) may pass after [uri, framework]. */
export interface RunCommandOptions {
  /** Resolve with the RunResult once the run finished and its summary opened (default: return at once). */
  wait?: boolean;
  /** Overrides the autobench.target setting. */
  target?: string;
  /** Simulated engine speed-up (target sim only). */
  simSpeed?: number;
  /** "Run candidate…" without the quick pick. */
  candidate?: string;
}

/** What a waited-for run command returns: the runner's result and how many trial rows the live panel showed. */
export type EditorRunResult = RunResult & { liveRows: number };

type Which = { kind: 'baseline' } | { kind: 'candidate' } | { kind: 'all' };

function uriOf(arg: unknown): vscode.Uri | undefined {
  if (typeof arg === 'string') return vscode.Uri.parse(arg);
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? active : undefined;
}

/** Only the known fields, with the right types: command arguments come from anywhere (lenses, keybindings, other extensions). */
function optionsOf(arg: unknown): RunCommandOptions {
  if (typeof arg !== 'object' || arg === null || arg instanceof vscode.Uri) return {};
  const a = arg as Record<string, unknown>;
  const out: RunCommandOptions = {};
  if (a.wait === true) out.wait = true;
  if (typeof a.target === 'string') out.target = a.target;
  if (typeof a.simSpeed === 'number' && a.simSpeed > 0) out.simSpeed = a.simSpeed;
  if (typeof a.candidate === 'string') out.candidate = a.candidate;
  return out;
}

function workspaceDir(uri: vscode.Uri): string {
  return (vscode.workspace.getWorkspaceFolder(uri) ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath ?? path.dirname(uri.fsPath);
}

/** The concrete `Host` names of ~/.ssh/config (patterns with wildcards or negation are not hosts one can pick). */
function sshConfigHosts(): string[] {
  let text: string;
  try {
    text = readFileSync(path.join(homedir(), '.ssh', 'config'), 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = splitConfigLine(raw);
    if (line?.key === 'host') out.push(...line.args.filter((h) => !/[*?!]/.test(h)));
  }
  return [...new Set(out)];
}

const stamp = (): string => new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');

export class Runs {
  private running: AbortController | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly summaries: SummaryPanels,
    private readonly client: () => LanguageClient | undefined,
    private readonly settingsChanged: () => void,
  ) {}

  commands(): Record<string, (...args: unknown[]) => unknown> {
    return {
      'autobench.runBaseline': (uri?: unknown, fw?: unknown, opts?: unknown) => this.start(uri, fw, { kind: 'baseline' }, optionsOf(opts)),
      'autobench.runCandidate': (uri?: unknown, fw?: unknown, opts?: unknown) => this.start(uri, fw, { kind: 'candidate' }, optionsOf(opts)),
      'autobench.runAll': (uri?: unknown, fw?: unknown, opts?: unknown) => this.start(uri, fw, { kind: 'all' }, optionsOf(opts)),
      'autobench.cancelRun': () => this.cancel(),
      'autobench.selectTarget': () => this.selectTarget(),
      'autobench.setHfToken': () => this.setHfToken(),
      'autobench.captureHelp': (uri?: unknown, opts?: unknown) => this.captureHelp(uri, optionsOf(opts)),
    };
  }

  /** The same as the progress notification's Cancel: servers are torn down and finished rows kept. */
  private cancel(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  private target(opts: RunCommandOptions): string {
    return opts.target ?? vscode.workspace.getConfiguration('autobench').get<string>('target', 'sim');
  }

  /** The shims in bin/sim must be executable; some .vsix unpackers drop the mode bits, so restore them. */
  private simBinDir(): string | undefined {
    const dir = path.join(this.context.extensionPath, 'bin', 'sim');
    if (!existsSync(path.join(dir, '_run'))) return undefined;
    try {
      accessSync(path.join(dir, '_run'), constants.X_OK);
    } catch {
      for (const f of readdirSync(dir)) if (!f.includes('.')) chmodSync(path.join(dir, f), 0o755);
    }
    return dir;
  }

  private helpDirSetting(ws: string): string | undefined {
    const v = vscode.workspace.getConfiguration('autobench').get<string>('helpDir', '');
    return v ? path.resolve(ws, v) : undefined;
  }

  /** An unknown ssh host key: the user decides (a mismatched key is refused by the executor without asking). */
  private async askHostKey(p: HostKeyPrompt): Promise<boolean> {
    const trust = 'Trust and connect';
    const pick = await vscode.window.showWarningMessage(
      `Autobench: the host ${p.host}:${p.port} is not in ${p.knownHostsFile}. Its ${p.keyType} key fingerprint is ${p.fingerprint}. Trust it and add it to known_hosts?`,
      { modal: true },
      trust,
    );
    return pick === trust;
  }

  /** HF_TOKEN from SecretStorage (read once before the run: the runner's lookup is synchronous); others from the environment. */
  private async secrets(): Promise<SecretSource> {
    const token = await this.context.secrets.get(HF_TOKEN_KEY);
    return (name) => (name === 'HF_TOKEN' && token ? token : processEnvSecrets(name));
  }

  private async pickCandidate(uri: vscode.Uri, framework: string): Promise<string | undefined> {
    const client = this.client();
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

  private async start(uriArg: unknown, fwArg: unknown, which: Which, opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
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
    // The run reads the file: unsaved edits would silently not be what runs, so save them first.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open?.isDirty && !(await open.save())) {
      void vscode.window.showWarningMessage(`Autobench: save ${path.basename(uri.fsPath)} before running it.`);
      return undefined;
    }
    const run = this.execute(uri, framework, candidates, opts);
    if (opts.wait) return run;
    void run;
    return undefined;
  }

  private async execute(uri: vscode.Uri, framework: string, candidates: string[] | undefined, opts: RunCommandOptions): Promise<EditorRunResult | undefined> {
    const ws = workspaceDir(uri);
    const target = this.target(opts);
    const what = candidates ? candidates.join(',') : 'all';
    const outDir = path.join(ws, 'autobench-runs', `${path.basename(uri.fsPath).replace(/\.ya?ml$/i, '')}-${framework}-${what}-${stamp()}`);
    const ac = new AbortController();
    this.running = ac;
    const live = new LivePanel(`Run: ${framework} ${what}`);
    try {
      const helpDir = this.helpDirSetting(ws);
      const simBinDir = this.simBinDir();
      const runOpts: RunOptions = {
        planText: readFileSync(uri.fsPath, 'utf8'),
        planPath: uri.fsPath,
        target,
        outDir,
        frameworks: [framework],
        ...(candidates ? { candidates } : {}),
        ...(helpDir ? { helpDir } : {}),
        ...(simBinDir ? { simBinDir } : {}),
        ...(opts.simSpeed ? { simSpeed: opts.simSpeed } : {}),
        secretEnv: ['HF_TOKEN'],
        secrets: await this.secrets(),
        hostKeyPrompt: (p) => this.askHostKey(p),
      };
      live.setHeader(`${framework} · ${what} on ${target}${target === 'sim' ? ' (SIMULATED engine: no real performance numbers)' : ''} → ${outDir}`);
      this.log.info(`run ${framework} ${what} on ${target} -> ${outDir}`);
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Autobench ${framework} ${what}${target === 'sim' ? ' (simulated)' : ''}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => ac.abort());
          let planned = 0;
          const onEvent = (e: RunEvent) => {
            live.onEvent(e);
            const msg = this.describe(e);
            if (e.type === 'run-start') planned = Math.max(1, e.plannedTrials - e.finishedTrials);
            if (e.type === 'log') this.log[e.level](e.message);
            if (msg) progress.report({ message: msg, ...(e.type === 'trial-end' && planned ? { increment: 100 / planned } : {}) });
          };
          return runPlan(runOpts, { onEvent, signal: ac.signal });
        },
      );
      // Waiting callers (tests) learn what the page showed; nobody else waits for the webview.
      const liveRows = opts.wait ? await live.settled(5000) : 0;
      const counts = result.rows.length;
      this.log.info(`run ${result.runId}: ${result.status}${result.reason ? ` (${result.reason})` : ''}, ${counts} row(s) in ${result.outDir}`);
      if (counts > 0) await this.summaries.show(path.join(result.outDir, 'rows.jsonl'));
      const line = `Autobench: run ${result.status}${result.reason ? `: ${result.reason}` : ''}, ${counts} row(s)${result.simulated ? ' (simulated)' : ''}.`;
      if (result.status === 'completed') void vscode.window.showInformationMessage(line);
      else void vscode.window.showWarningMessage(line);
      return { ...result, liveRows };
    } catch (e) {
      const err = e as Error;
      const detail = e instanceof PlanError ? `${err.message}: ${e.problems.join('; ')}` : err.message;
      this.log.error(`run ${framework} ${what}: ${detail}`);
      void vscode.window.showErrorMessage(`Autobench: the run could not start: ${detail}`);
      if (opts.wait) throw err;
      return undefined;
    } finally {
      this.running = undefined;
    }
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
      case 'run-end':
        return `done: ${e.status}`;
      default:
        return undefined;
    }
  }

  private async selectTarget(): Promise<string | undefined> {
    const c = vscode.workspace.getConfiguration('autobench');
    const hosts = c.get<string[]>('hosts', []);
    const current = c.get<string>('target', 'sim');
    const items = [
      { label: 'sim', description: 'the simulated engine (no GPU; numbers are simulated)' },
      { label: 'local', description: 'this machine' },
      ...hosts.map((h) => ({ label: `ssh:${h}`, description: 'over ssh (autobench.hosts)' })),
      ...sshConfigHosts()
        .filter((h) => !hosts.includes(h))
        .map((h) => ({ label: `ssh:${h}`, description: 'over ssh (~/.ssh/config)' })),
    ].map((i) => (i.label === current ? { ...i, detail: 'current target' } : i));
    const picked = await vscode.window.showQuickPick(items, { title: 'Autobench target', placeHolder: `Where runs start servers (now: ${current})` });
    if (!picked) return undefined;
    await c.update('target', picked.label, vscode.ConfigurationTarget.Workspace);
    return picked.label;
  }

  private async setHfToken(): Promise<boolean> {
    const value = await vscode.window.showInputBox({
      title: 'Hugging Face token',
      prompt: 'Stored in VS Code SecretStorage; runs pass it to servers as HF_TOKEN (never in a command, a file or a log). Empty clears it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return false;
    if (value.trim()) await this.context.secrets.store(HF_TOKEN_KEY, value.trim());
    else await this.context.secrets.delete(HF_TOKEN_KEY);
    void vscode.window.showInformationMessage(value.trim() ? 'Autobench: Hugging Face token stored.' : 'Autobench: Hugging Face token cleared.');
    return true;
  }

  /** Writes the target's --help texts into the workspace help folder, then has the server re-check configs. */
  private async captureHelp(uriArg: unknown, opts: RunCommandOptions): Promise<string[] | undefined> {
    const uri = uriOf(uriArg);
    if (!uri) {
      void vscode.window.showInformationMessage('Autobench: open a plan or config to capture its frameworks\' --help texts.');
      return undefined;
    }
    const ws = workspaceDir(uri);
    const configured = this.helpDirSetting(ws);
    const dir = configured ?? path.join(ws, 'help');
    const target = this.target(opts);
    try {
      const simBinDir = this.simBinDir();
      const captured = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Autobench: capturing --help texts from ${target}` }, async () =>
        captureHelpSnapshots({
          planText: readFileSync(uri.fsPath, 'utf8'),
          planPath: uri.fsPath,
          target,
          dir,
          ...(simBinDir ? { simBinDir } : {}),
          secrets: await this.secrets(),
          hostKeyPrompt: (p) => this.askHostKey(p),
        }),
      );
      for (const c of captured) this.log.info(`help ${c.framework}: ${c.ok ? 'ok' : 'failed'} ${c.detail}${c.file ? ` -> ${c.file}` : ''}`);
      const files = captured.flatMap((c) => (c.file ? [c.file] : []));
      const failed = captured.filter((c) => !c.ok).map((c) => c.framework);
      if (!configured) {
        // The server only reads snapshots from autobench.helpDir: point it at the new folder (workspace setting).
        await vscode.workspace.getConfiguration('autobench').update('helpDir', dir, vscode.ConfigurationTarget.Workspace);
      }
      this.settingsChanged();
      const msg = `Autobench: ${files.length} --help snapshot(s) from ${target} in ${dir}${failed.length ? `; failed: ${failed.join(', ')}` : ''}.`;
      if (failed.length) void vscode.window.showWarningMessage(msg);
      else void vscode.window.showInformationMessage(msg);
      return files;
    } catch (e) {
      const err = e as Error;
      const detail = e instanceof PlanError ? `${err.message}: ${e.problems.join('; ')}` : err.message;
      this.log.error(`capture help: ${detail}`);
      void vscode.window.showErrorMessage(`Autobench: capturing help texts failed: ${detail}`);
      return undefined;
    }
  }
}
