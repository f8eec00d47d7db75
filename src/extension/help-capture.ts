// "Capture Help Snapshots from Target": writes the target's --help texts into the workspace help folder, then has the server re-check configs.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { captureHelpSnapshots, PlanError } from '../runner';
import type { AutobenchContext } from './context';
import { askHostKey, helpDirOf, simBinDir, targetOf, uriOf, workspaceDir, type RunCommandOptions } from './run-inputs';
import { withoutSecretVariables } from './secrets';
import { writeHelpDir } from './settings';

/** Resolves with the snapshot files written, or undefined when nothing could be captured. */
export async function captureHelp(ctx: AutobenchContext, uriArg: unknown, opts: RunCommandOptions): Promise<string[] | undefined> {
  const uri = uriOf(uriArg);
  if (!uri) {
    void vscode.window.showInformationMessage('Autobench: open a plan or config to capture its frameworks\' --help texts.');
    return undefined;
  }
  const ws = workspaceDir(uri);
  const configured = helpDirOf(ws);
  const dir = configured ?? path.join(ws, 'help');
  const target = targetOf(opts);
  try {
    const simBin = simBinDir(ctx.extension.extensionPath);
    const captured = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Autobench: capturing --help texts from ${target}` }, async () =>
      captureHelpSnapshots({
        planText: readFileSync(uri.fsPath, 'utf8'),
        planPath: uri.fsPath,
        target,
        dir,
        ...(simBin ? { simBinDir: simBin } : {}),
        // `--help` needs no secret: none is sent, and none is inherited from this process.
        secrets: () => undefined,
        baseEnv: withoutSecretVariables(process.env),
        hostKeyPrompt: askHostKey,
      }),
    );
    for (const c of captured) ctx.log.info(`help ${c.framework}: ${c.ok ? 'ok' : 'failed'} ${c.detail}${c.file ? ` -> ${c.file}` : ''}`);
    const files = captured.flatMap((c) => (c.file ? [c.file] : []));
    const failed = captured.filter((c) => !c.ok).map((c) => c.framework);
    // The server only reads snapshots from the help-folder setting: point it at the new folder (workspace setting).
    if (!configured) await writeHelpDir(dir);
    ctx.pushSettings();
    const msg = `Autobench: ${files.length} --help snapshot(s) from ${target} in ${dir}${failed.length ? `; failed: ${failed.join(', ')}` : ''}.`;
    if (failed.length) void vscode.window.showWarningMessage(msg);
    else void vscode.window.showInformationMessage(msg);
    return files;
  } catch (e) {
    const err = e as Error;
    const detail = e instanceof PlanError ? `${err.message}: ${e.problems.join('; ')}` : err.message;
    ctx.log.error(`capture help: ${detail}`);
    void vscode.window.showErrorMessage(`Autobench: capturing help texts failed: ${detail}`);
    return undefined;
  }
}
