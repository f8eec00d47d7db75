// A plan's text to a run plan: checked with the snapshots it names (--help-dir, else version_manifest server_help), then frameworks, candidates and trials.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { checkConfigText, type CheckResult } from '../core/config/check';
import type { SnapshotFlags } from '../core/config/known-flags';
import { toJson } from '../core/py/value';
import { loadSnapshotFiles, loadSnapshotFlags } from '../core/config/snapshot-flags';
import type { FrameworkKey } from '../core/frameworks/types';
import { buildRunPlan, type RunPlan } from './plan';
import type { Tier } from './types';

export interface LoadedPlan {
  check: CheckResult;
  plan: RunPlan;
  snapshots: SnapshotFlags;
  /** Where the flag names were checked before preflight (snapshot files, or the built-in tables). */
  snapshotNote: string;
}

/** Checks the plan (with --help-dir, else the plan's version_manifest server_help files) and derives the run plan. Throws PlanError. */
export function loadPlan(o: { planText: string; planPath: string; helpDir?: string; tier?: Tier; frameworks?: readonly string[]; candidates?: readonly string[] }): LoadedPlan {
  let snapshots: SnapshotFlags = {};
  let note = 'built-in flag tables';
  let check = checkConfigText(o.planText, { kind: 'auto' });
  if (o.helpDir) {
    snapshots = loadSnapshotFlags(o.helpDir).flags;
    note = `snapshots in ${o.helpDir}`;
  } else {
    const root = check.root ? (toJson(check.root.value) as Record<string, unknown>) : undefined;
    const vm = root && typeof root.version_manifest === 'object' && root.version_manifest ? (root.version_manifest as Record<string, unknown>) : {};
    const files: Partial<Record<FrameworkKey, string[]>> = {};
    for (const [fw, rec] of Object.entries(vm)) {
      const help = rec && typeof rec === 'object' ? (rec as Record<string, unknown>).server_help : undefined;
      if (typeof help !== 'string' || !help) continue;
      const p = isAbsolute(help) ? help : resolve(dirname(o.planPath), help);
      if (existsSync(p)) files[fw as FrameworkKey] = [p];
    }
    if (Object.keys(files).length) {
      snapshots = loadSnapshotFiles(files).flags;
      note = `version_manifest server_help (${Object.keys(snapshots).join(', ')})`;
    }
  }
  if (Object.keys(snapshots).length) check = checkConfigText(o.planText, { kind: 'auto', snapshots });
  const plan = buildRunPlan(check, { ...(o.tier ? { tier: o.tier } : {}), ...(o.frameworks ? { only: o.frameworks } : {}), ...(o.candidates ? { candidates: o.candidates } : {}) });
  return { check, plan, snapshots, snapshotNote: note };
}
