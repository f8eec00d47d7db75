// What a run or a help capture started from the editor needs: its arguments, workspace, target, help folder, secrets and host-key prompt.
import { accessSync, chmodSync, constants, existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostKeyPrompt } from '../runner';
import { readSettings } from './settings';
import { slurmRunOptions } from './settings-model';


/** Extra arguments tests (and other extensions) may pass after [uri, framework]. */
export interface RunCommandOptions {
  /** Resolve with the RunResult once the run finished and its summary opened (default: return at once). */
  wait?: boolean;
  /** Overrides the autobench.run.target setting. */
  target?: string;
  /** Simulated engine speed-up (target sim only). */
  simSpeed?: number;
  /** Re-measurements of each finalist on fresh servers (the runner's default 3; 0: none). */
  repeats?: number;
  /** "Run candidate…" without the quick pick. */
  candidate?: string;
  /** A framework with errors: 'ask' first (the default), or 'run' without asking (a caller that already knows). */
  ifErrors?: 'ask' | 'run';
  /** The answer to "Send NAME to TARGET?" instead of the modal: honoured only in ExtensionMode.Test (runs.ts). */
  secretAnswer?: 'once' | 'always' | 'no';
}

/** The config a command is about: its argument (string or Uri), else the active file. */
export function uriOf(arg: unknown): vscode.Uri | undefined {
  if (typeof arg === 'string') return vscode.Uri.parse(arg);
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? active : undefined;
}

/** Only the known fields, with the right types: command arguments come from anywhere (lenses, keybindings, other extensions). */
export function optionsOf(arg: unknown): RunCommandOptions {
  if (typeof arg !== 'object' || arg === null || arg instanceof vscode.Uri) return {};
  const a = arg as Record<string, unknown>;
  const out: RunCommandOptions = {};
  if (a.wait === true) out.wait = true;
  if (typeof a.target === 'string') out.target = a.target;
  if (typeof a.simSpeed === 'number' && a.simSpeed > 0) out.simSpeed = a.simSpeed;
  if (typeof a.repeats === 'number' && Number.isInteger(a.repeats) && a.repeats >= 0) out.repeats = a.repeats;
  if (typeof a.candidate === 'string') out.candidate = a.candidate;
  if (a.ifErrors === 'ask' || a.ifErrors === 'run') out.ifErrors = a.ifErrors;
  if (a.secretAnswer === 'once' || a.secretAnswer === 'always' || a.secretAnswer === 'no') out.secretAnswer = a.secretAnswer;
  return out;
}

export function workspaceDir(uri: vscode.Uri): string {
  return (vscode.workspace.getWorkspaceFolder(uri) ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath ?? path.dirname(uri.fsPath);
}

export function targetOf(opts: RunCommandOptions): string {
  return opts.target ?? readSettings().run.target;
}

/** On a `slurm[:PARTITION]` target the slurm settings (candidates at once, simulated engine on the nodes); nothing on other targets. */
export function slurmOptionsOf(target: string): { maxParallel?: number; simOnNodes?: boolean } {
  return slurmRunOptions(target, readSettings().slurm);
}

/** The configured help folder, resolved against the workspace; undefined when none is set. */
export function helpDirOf(ws: string): string | undefined {
  const v = readSettings().snapshots.helpDir;
  return v ? path.resolve(ws, v) : undefined;
}

/** The shims in bin/sim must be executable; some .vsix unpackers drop the mode bits, so restore them. */
export function simBinDir(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'bin', 'sim');
  if (!existsSync(path.join(dir, '_run'))) return undefined;
  try {
    accessSync(path.join(dir, '_run'), constants.X_OK);
  } catch {
    for (const f of readdirSync(dir)) if (!f.includes('.')) chmodSync(path.join(dir, f), 0o755);
  }
  return dir;
}

/** An unknown ssh host key: the user decides (a mismatched key is refused by the executor without asking). */
export async function askHostKey(p: HostKeyPrompt): Promise<boolean> {
  const trust = 'Trust and connect';
  const pick = await vscode.window.showWarningMessage(
    `Autobench: the host ${p.host}:${p.port} is not in ${p.knownHostsFile}. Its ${p.keyType} key fingerprint is ${p.fingerprint}. Trust it and add it to known_hosts?`,
    { modal: true },
    trust,
  );
  return pick === trust;
}

