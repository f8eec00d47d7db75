// The Slurm entries of "Select Run Target": this host's partitions from `sinfo` (short timeout, quiet when Slurm is absent) and the open plan's slurm.partition. vscode-free, so unit tests call it.
import { execFile } from 'node:child_process';
import { parseSinfoPartitions, planSlurmOf, SINFO_ARGV, type SlurmPartition } from '../core/plan/slurm-partitions';

/** A quick-pick entry as plain data: the label is the target the runner gets. */
export interface TargetItem {
  label: string;
  description: string;
}

/** What `sinfo` said: its output, or why there is none (not installed, no controller, too slow). */
export type SinfoAnswer = { ok: true; stdout: string } | { ok: false; why: string };

export interface SinfoOptions {
  timeoutMs?: number;
  /** The environment sinfo runs in (tests point PATH at a stand-in, or at nothing). */
  env?: NodeJS.ProcessEnv;
}

/** Runs `sinfo` on this machine (the login host the runner submits from); never rejects. */
export function querySinfo(o: SinfoOptions = {}): Promise<SinfoAnswer> {
  const [file, ...args] = SINFO_ARGV as [string, ...string[]];
  return new Promise((resolve) => {
    execFile(file, args, { timeout: o.timeoutMs ?? 3000, encoding: 'utf8', env: o.env ?? process.env, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, stdout });
      const e = err as NodeJS.ErrnoException & { killed?: boolean };
      const why = e.code === 'ENOENT' ? 'sinfo not found (not a Slurm login host)' : e.killed ? `sinfo did not answer within ${(o.timeoutMs ?? 3000) / 1000} s` : `sinfo failed: ${(stderr || e.message).trim().split('\n')[0]}`;
      resolve({ ok: false, why });
    });
  });
}

function describe(p: SlurmPartition, planPartition: string | undefined, gres: string): string {
  const parts = [`Slurm partition${p.isDefault ? ' (default)' : ''}: ${p.gpusPerNode} ${gres} per node, ${p.nodes} node${p.nodes === 1 ? '' : 's'}`];
  if (!p.up) parts.push('not up');
  if (p.name === planPartition) parts.push("the plan's slurm.partition");
  return parts.join(' · ');
}

/** `slurm:NAME` per partition (the default first, as parseSinfoPartitions orders them), then the plan's partition when sinfo does not list it. */
export function slurmTargetItems(partitions: readonly SlurmPartition[], planPartition: string | undefined, gres = 'gpu'): TargetItem[] {
  const items = partitions.map((p) => ({ label: `slurm:${p.name}`, description: describe(p, planPartition, gres) }));
  if (planPartition && !partitions.some((p) => p.name === planPartition)) items.push({ label: `slurm:${planPartition}`, description: "the plan's slurm.partition (sinfo does not list it)" });
  return items;
}

/** The Slurm entries for a plan text (the open editor's, if any): none, with the reason, when sinfo gives no answer. */
export async function slurmTargets(planText: string | undefined, o: SinfoOptions = {}): Promise<{ items: TargetItem[]; note?: string }> {
  const answer = await querySinfo(o);
  if (!answer.ok) return { items: [], note: answer.why };
  const plan = planText === undefined ? undefined : planSlurmOf(planText);
  const gres = plan?.gres ?? 'gpu';
  const partitions = parseSinfoPartitions(answer.stdout, gres);
  return { items: slurmTargetItems(partitions, plan?.partition, gres), ...(partitions.length ? {} : { note: 'sinfo lists no partition' }) };
}
