// What `autobench doctor` finds: checks grouped by scope (the target, each framework), each ok, warn or problem, with the fix for anything not ok.

export type CheckStatus = 'ok' | 'warn' | 'problem';

export interface DoctorCheck {
  /** cli, version, help, plan-flags, gpus, node, client, port, bind, reach. */
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it (warn and problem only). */
  fix?: string;
}

export interface DoctorSection {
  /** 'target' for what the host offers every framework, else the framework's key. */
  scope: string;
  /** The server command the framework would launch with (framework sections). */
  command?: string;
  checks: DoctorCheck[];
}

export interface DoctorReport {
  target: string;
  /** Where servers would run: the host, or a Slurm job's node. */
  host: string;
  simulated: boolean;
  sections: DoctorSection[];
  /** True when a run can start: no check is a problem (warnings allowed). */
  ok: boolean;
}

export const ok = (name: string, detail: string): DoctorCheck => ({
  name,
  status: 'ok',
  detail,
});
export const warn = (name: string, detail: string, fix: string): DoctorCheck => ({ name, status: 'warn', detail, fix });
export const problem = (name: string, detail: string, fix: string): DoctorCheck => ({ name, status: 'problem', detail, fix });

/** Every check of the report is ok or warn. */
export function runnable(sections: readonly DoctorSection[]): boolean {
  return sections.every((s) => s.checks.every((c) => c.status !== 'problem'));
}
