// "Capture help snapshots from host": each framework's --help text (vLLM --help=all) and version from a target, saved where validate --help-dir and the editor read snapshots.
import { resolve } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import { RunDir } from './artifacts';
import { captureHelp, captureVersion } from './preflight';
import { planOf } from './run';
import { openTarget, secretSourceOf } from './target';
import type { RunOptions } from './types';

export interface CapturedHelp {
  framework: FrameworkKey;
  /** The saved snapshot (absent when the CLI gave no help text). */
  file?: string;
  command: string;
  ok: boolean;
  detail: string;
  version?: string;
}

export type CaptureOptions = Pick<RunOptions, 'planText' | 'planPath' | 'target' | 'frameworks' | 'acceptNewHostKey' | 'hostKeyPrompt' | 'ssh' | 'container' | 'simBinDir' | 'baseEnv' | 'secrets'> & {
  /** The snapshot folder (e.g. the workspace's autobench.helpDir). */
  dir: string;
};

/** Every framework the plan does not leave out, with the plan's own server command. Throws PlanError like runPlan. */
export async function captureHelpSnapshots(o: CaptureOptions): Promise<CapturedHelp[]> {
  const plan = planOf({ ...o, outDir: o.dir });
  const runOpts: RunOptions = { ...o, outDir: o.dir };
  const target = await openTarget(runOpts, secretSourceOf(runOpts));
  const dir = new RunDir(resolve(o.dir));
  const out: CapturedHelp[] = [];
  try {
    for (const f of plan.frameworks) {
      if (f.status === 'user_excluded') continue;
      const help = await captureHelp(target.executor, dir, f.framework, f.serverCommand, '');
      const ver = await captureVersion(target.executor, f.framework, f.serverCommand);
      out.push({ framework: f.framework, ...(help.file ? { file: dir.path(help.file) } : {}), command: help.command.join(' '), ok: help.ok, detail: help.detail, ...(ver.version ? { version: ver.version } : {}) });
    }
  } finally {
    await target.close();
  }
  return out;
}
