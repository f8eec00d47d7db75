// manifest.json: what a run is (plan hash, target, simulator settings, client, workload, SLA, trial plan) and what it found (versions, help, GPUs, smoke, searches, live servers).
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import type { SlaLimits } from '../core/results/sla';
import { safeName } from './artifacts';
import type { GpuCheck } from './preflight';
import type { RunStatus, Tier } from './types';

export interface FrameworkState {
  status: string;
  reason?: string;
  server_command: string;
  help?: { command: string; file?: string; ok: boolean; detail: string; checked_against?: string };
  version?: { command?: string; version?: string };
  smoke?: unknown;
  outcome?: string;
  candidates: Array<{ id: string; name: string; command: string; skip?: string; outcome?: string }>;
  searches: Record<string, string>;
}

export interface Manifest {
  run_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus | 'running';
  reason?: string;
  simulated: boolean;
  note?: string;
  plan: { path: string; sha256: string; copy: string; snapshots: string };
  target: { spec: string; describe: string; host: string };
  sim?: { speed: number; seed: number; gpu: string; extra: string; bin: string; time: string };
  client: { name: string; version: string };
  tokenizer: string;
  workload: Record<string, unknown>;
  sla: SlaLimits;
  tier: Tier;
  trial_plan: Record<string, unknown>;
  gpu?: GpuCheck | { status: 'skipped'; detail: string };
  frameworks: Partial<Record<FrameworkKey, FrameworkState>>;
  resumes: Array<{ at: string; finished_trials: number }>;
  /** Servers running right now (process groups on the target); a killed runner leaves them here for --resume to clean up. */
  live_servers: LiveRecord[];
}

/** A server process group on the target, recorded while it runs. */
export interface LiveRecord {
  pgid: number;
  target: string;
  framework: FrameworkKey;
  candidate: string;
  program: string;
}

export function newRunId(planPath: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  return `${safeName(basename(planPath).replace(/\.(ya?ml|json)$/i, ''))}-${stamp}-${randomBytes(2).toString('hex')}`;
}
