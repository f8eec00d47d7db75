// `autobench doctor [--target T] [PLAN]`: what a first real run would meet on a target, without loading a model; exit 0 when a run can start, 1 when a problem blocks it, 2 for a wrong command line.
import { readFileSync } from 'node:fs';
import { PlanError } from '../runner';
import { formatDoctor, runDoctor, type DoctorOptions, type DoctorPaint } from '../runner/doctor';
import { parseCommand } from './args';
import { styleFor, type Style } from './colors';
import { EnvironmentError, UsageError, errnoText } from './errors';
import { optionsFrom } from './run-args';
import type { CliIO } from './validate';

export const DOCTOR_HELP = `usage: autobench doctor [PLAN] [--target sim|local|ssh:HOST|slurm[:PARTITION]]
                        [--frameworks A,B] [--gpus 0,1,...] [--help-dir DIR]
                        [--accept-new-host-key] [--sim-on-nodes] [--json]

Checks what a first real run on the target would meet, without loading a model:
per framework (the plan's enabled ones, or all four without a PLAN) the CLI
found on the host's PATH, its version and how it was read, its captured --help
(how many flags, or why it lists none: a keyword search, a grouped summary) and
the plan's flags it does not list; the GPUs (ids, memory in use,
CUDA_VISIBLE_DEVICES); Node and the load client on the host; whether the port
each server would use is free; the address it would bind and whether the
readiness check and the load client reach it there (a throwaway listener on the
host at that address and port). On slurm it places one job to look inside.
Every warning and problem says its fix.

options:
  --target T            sim (default), local, ssh:HOST or slurm[:PARTITION], as for run
  --frameworks A,B      check only these
  --gpus 0,1,...        the GPUs a run would use (default CUDA_VISIBLE_DEVICES,
                        else the plan's hardware.gpu_count from 0)
  --help-dir DIR        the plan's flags are first read against this folder of
                        captured --help texts, as for run
  --accept-new-host-key trust an ssh host seen for the first time
  --sim-on-nodes        slurm: the nodes run the SIMULATED framework CLIs
  --json                the report as JSON (checks: scope, name, status, detail, fix)
  -h, --help            show this help

exit status: 0 a run can start (warnings allowed), 1 a problem blocks it (or
the plan cannot run, the target cannot be opened), 2 bad arguments`;

const DOCTOR_OPTIONS = {
  target: { type: 'string' },
  frameworks: { type: 'string' },
  gpus: { type: 'string' },
  'help-dir': { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
  'sim-on-nodes': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** The command line checked (as `run` checks the same options) and the plan read. */
function prepare(argv: string[], out: NodeJS.WritableStream): { opts: DoctorOptions; json: boolean; planPath: string | undefined } | undefined {
  const parsed = parseCommand(argv, DOCTOR_OPTIONS, DOCTOR_HELP, out);
  if (!parsed) return undefined;
  const [planPath, ...extra] = parsed.positionals;
  if (extra.length) throw new UsageError(`doctor takes one PLAN, got ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`);
  const { json, ...values } = parsed.values;
  const { outDir: _unused, ...base } = optionsFrom(values, planPath ?? '');
  let planText: string | undefined;
  if (planPath !== undefined) {
    try {
      planText = readFileSync(planPath, 'utf8');
    } catch (e) {
      throw new EnvironmentError(`cannot read ${planPath}: ${errnoText(e)}`);
    }
  }
  const opts: DoctorOptions = {
    ...base,
    ...(planText !== undefined ? { planText, planPath } : { planPath: undefined }),
  };
  return { opts, json: Boolean(json), planPath };
}

/** The terminal's colours for the report: ok green, warn yellow, problem red. */
function paintOf(st: Style): DoctorPaint {
  return { status: (s, t) => (s === 'ok' ? st.green(t) : s === 'warn' ? st.yellow(t) : st.red(t)), bold: (t) => st.bold(t) };
}

export async function runDoctorCommand(argv: string[], io: CliIO): Promise<number> {
  const p = prepare(argv, io.out);
  if (!p) return 0;
  const st = styleFor(io.err);
  let report;
  try {
    report = await runDoctor(p.opts);
  } catch (e) {
    if (e instanceof PlanError) {
      io.err.write(`${st.red('error')}: ${p.planPath ?? 'the plan'}: ${e.message}:\n${e.problems.map((x) => `  ${x}\n`).join('')}`);
      return 1;
    }
    const hint = (e as Error).name === 'HostKeyError' && !p.opts.acceptNewHostKey ? ' (an unknown host key is accepted with --accept-new-host-key; a changed one never is)' : '';
    io.err.write(`${st.red('error')}: cannot open the target ${p.opts.target}: ${(e as Error).message}${hint}\n`);
    return 1;
  }
  io.out.write(p.json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report, paintOf(styleFor(io.out))));
  return report.ok ? 0 : 1;
}
