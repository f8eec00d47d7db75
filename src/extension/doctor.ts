// "Autobench: Check Run Target (doctor)": the run target of the settings (or the command's) checked as `autobench doctor` does, the report in an Output channel, and a status-bar item while it says a run cannot start.
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { PlanError } from '../runner';
import { doctorCounts, formatDoctor, runDoctor, type DoctorReport } from '../runner/doctor';
import { COMMAND_IDS } from './command-ids';
import type { AutobenchContext } from './context';
import { askHostKey, simBinDir, slurmOptionsOf, targetOf, uriOf, type RunCommandOptions } from './run-inputs';
import { withoutSecretVariables } from './secrets';

/** The Output channel and the status-bar item, made on first use and kept for the extension's lifetime. */
interface DoctorView {
  output: vscode.OutputChannel;
  status: vscode.StatusBarItem;
}

let view: DoctorView | undefined;

function viewOf(ctx: AutobenchContext): DoctorView {
  if (view) return view;
  const output = vscode.window.createOutputChannel('Autobench Doctor');
  const status = vscode.window.createStatusBarItem('autobench.doctor', vscode.StatusBarAlignment.Left, 50);
  status.name = 'Autobench doctor';
  status.command = COMMAND_IDS.checkTarget;
  ctx.pushExtension(output, status, { dispose: () => (view = undefined) });
  view = { output, status };
  return view;
}

/** A plan is checked when the command names one or a plan/config is the active file; else every framework with its default command. */
function planOf(uriArg: unknown): { planText: string; planPath: string } | undefined {
  const uri = uriOf(uriArg);
  if (!uri || !/\.ya?ml$/i.test(uri.fsPath)) return undefined;
  return { planText: readFileSync(uri.fsPath, 'utf8'), planPath: uri.fsPath };
}

/** Shows the report; the status-bar item stays while a run cannot start (a click checks again). */
function show(v: DoctorView, r: DoctorReport): void {
  v.output.clear();
  v.output.append(formatDoctor(r));
  v.output.show(true);
  const c = doctorCounts(r);
  if (r.ok) {
    v.status.hide();
    return;
  }
  v.status.text = `$(error) Autobench doctor: ${c.problems} problem${c.problems === 1 ? '' : 's'}`;
  v.status.tooltip = `A run on ${r.target} cannot start: ${c.text}. Click to check again (the report is in the Output panel, "Autobench Doctor").`;
  v.status.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
  v.status.show();
}

/** Resolves with the report, or undefined when the checks could not run (Restricted Mode refuses before: commands.ts). */
export async function doctor(ctx: AutobenchContext, uriArg: unknown, opts: RunCommandOptions): Promise<DoctorReport | undefined> {
  const v = viewOf(ctx);
  const target = targetOf(opts);
  try {
    const simBin = simBinDir(ctx.extension.extensionPath);
    const plan = planOf(uriArg);
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Autobench: checking ${target} (doctor)` }, () =>
      runDoctor({
        ...(plan ?? {}),
        target,
        ...slurmOptionsOf(target),
        ...(simBin ? { simBinDir: simBin } : {}),
        // Nothing doctor runs needs a secret: none is sent, and none is inherited from this process.
        secrets: () => undefined,
        baseEnv: withoutSecretVariables(process.env),
        hostKeyPrompt: askHostKey,
      }),
    );
    show(v, report);
    ctx.log.info(`doctor ${target}: ${doctorCounts(report).text}`);
    return report;
  } catch (e) {
    const err = e as Error;
    const detail = e instanceof PlanError ? `${err.message}: ${e.problems.join('; ')}` : err.message;
    ctx.log.error(`doctor: ${detail}`);
    v.output.clear();
    v.output.appendLine(`autobench doctor: --target ${target}: ${detail}`);
    v.status.text = '$(error) Autobench doctor: cannot check';
    v.status.tooltip = `The target ${target} could not be checked: ${detail}. Click to check again.`;
    v.status.show();
    void vscode.window.showErrorMessage(`Autobench: checking ${target} failed: ${detail}`);
    return undefined;
  }
}
