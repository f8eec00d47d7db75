// `autobench doctor`: what a first real run on a target would meet, without loading a model — the target opened as a run opens it (a Slurm job placed), then per framework its CLI, version, help and the plan's flags, the GPUs, Node and the client on the host, and where each server would listen and be reached.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { candidateFlagsJson } from '../../core/candidates/candidate';
import { FRAMEWORKS, frameworkSpec } from '../../core/frameworks';
import type { FrameworkKey } from '../../core/frameworks/types';
import type { PlanFramework, RunPlan } from '../../core/plan/types';
import { RunDir } from '../artifacts';
import { hostExecutorOf } from '../client-placement';
import { planOf } from '../run';
import { openTarget, secretSourceOf } from '../target';
import type { RunTarget } from '../target-types';
import type { RunOptions } from '../types';
import { frameworkChecks } from './framework';
import { clientChecks, gpuCheck } from './host';
import { serverChecks } from './server';
import { ok, problem, runnable, warn, type DoctorReport, type DoctorSection } from './types';

export type { CheckStatus, DoctorCheck, DoctorReport, DoctorSection } from './types';
export { doctorCounts, formatDoctor, type DoctorPaint } from './format';

/** A run's options; the plan is optional (without one: every framework with its default command); outDir: a scratch folder (its name tags a Slurm job), removed after; default a fresh temp one. */
export type DoctorOptions = Omit<RunOptions, 'planText' | 'planPath' | 'outDir'> & { planText?: string; planPath?: string; outDir?: string };

interface Subject {
  framework: FrameworkKey;
  serverCommand: string;
  entry: PlanFramework | undefined;
  /** The flags and argv of the candidate the run would launch first (its smoke), as the runner reads them. */
  flags: Record<string, unknown>;
  argv: readonly string[];
}

function subjectsOf(plan: RunPlan | undefined, only: readonly string[] | undefined): Subject[] {
  if (!plan)
    return FRAMEWORKS.filter((fw) => !only || only.includes(fw)).map((fw) => ({
      framework: fw,
      serverCommand: frameworkSpec(fw).defaultServerCommand,
      entry: undefined,
      flags: {},
      argv: [],
    }));
  return plan.frameworks
    .filter((f) => f.status === 'run')
    .map((f) => {
      const first = f.candidates.find((c) => !c.skip) ?? f.candidates[0];
      return {
        framework: f.framework,
        serverCommand: f.serverCommand,
        entry: f,
        flags: first ? candidateFlagsJson(first) : {},
        argv: first?.argv ?? [],
      };
    });
}

/** Where servers would run: the target itself, or on slurm a job placed for doctor (released after). */
async function placeOn(target: RunTarget, subjects: Subject[], gpus: number): Promise<{ on: RunTarget; release: () => Promise<void> } | string> {
  if (!target.place) return { on: target, release: () => Promise.resolve() };
  const first = subjects[0]?.framework ?? 'vllm';
  const p = await target.place({ framework: first, candidateId: 'doctor', purpose: 'smoke', gpus }, undefined);
  if ('refused' in p) return p.reason;
  return { on: p.target, release: () => p.release() };
}

/** Runs every check; throws PlanError when the plan cannot run and the target's own error when it cannot be opened. */
export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const scratch = o.outDir ?? mkdtempSync(join(tmpdir(), 'autobench-doctor-'));
  mkdirSync(scratch, { recursive: true });
  const opts: RunOptions = {
    ...o,
    planText: o.planText ?? '',
    planPath: o.planPath ?? '',
    outDir: scratch,
  };
  try {
    const plan = o.planText !== undefined || o.plan ? planOf(opts) : undefined;
    const subjects = subjectsOf(plan, o.frameworks);
    const gpus = plan?.hardware.gpuCount ?? 1;
    const target = await openTarget(opts, secretSourceOf(opts), plan?.hardware.gpuModel, plan?.slurm);
    const base = { target: o.target, simulated: target.simulated };
    try {
      const placed = await placeOn(target, subjects, gpus);
      if (typeof placed === 'string') {
        const sections = [
          {
            scope: 'target',
            checks: [problem('slurm', `no job could be placed for doctor: ${placed}`, 'ask for what the partition has (hardware.gpu_count, slurm: block in the plan) or choose another with --target slurm:PARTITION')],
          },
        ];
        return { ...base, host: target.host, sections, ok: false };
      }
      try {
        const sections = await checkAll(placed.on, subjects, plan, o, gpus, scratch);
        return {
          ...base,
          host: placed.on.host,
          sections,
          ok: runnable(sections),
        };
      } finally {
        await placed.release();
      }
    } finally {
      await target.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function checkAll(t: RunTarget, subjects: Subject[], plan: RunPlan | undefined, o: DoctorOptions, gpus: number, scratch: string): Promise<DoctorSection[]> {
  const host = hostExecutorOf(t.executor);
  const local = host.target === 'local';
  const client = await clientChecks(host, local);
  // A Slurm node runs real jobs holding GPUs even under --sim-on-nodes: its GPUs are looked at.
  const targetChecks = [t.kind === 'sim' ? ok('gpus', 'the simulator uses no GPU') : await gpuCheck(t.executor, o.gpus, gpus), ...client.checks];
  const sections: DoctorSection[] = [{ scope: 'target', checks: targetChecks }];
  const dir = new RunDir(join(scratch, 'help'));
  if (plan && subjects.length === 0) targetChecks.push(problem('plan', 'no framework of the plan would run', 'enable a framework the plan can run (autobench validate names what leaves each out)'));
  for (const f of plan?.frameworks ?? []) {
    if (f.status === 'skipped')
      sections.push({
        scope: f.framework,
        command: f.serverCommand,
        // A warning: a run starts and skips this framework, as `autobench run` does (the other frameworks decide).
        checks: [warn('plan', `the plan leaves it out (a run skips it): ${f.reason ?? 'skipped'}`, `fix frameworks.${f.framework} in the plan (autobench validate names the line), or set enabled: false there`)],
      });
  }
  for (const s of subjects) {
    const checks = await frameworkChecks(t.executor, t.host, dir, s.framework, s.serverCommand, plan, s.entry);
    if (checks[0]?.status !== 'problem') checks.push(...(await serverChecks(t, s.framework, s.flags, s.argv, client.interpreter, client.clientOnHost)));
    sections.push({ scope: s.framework, command: s.serverCommand, checks });
  }
  return sections;
}
