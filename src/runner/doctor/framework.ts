// Doctor's checks of one framework's CLI on the target: found on PATH, its version and how it was read, its captured --help (how many flags, or why it lists none), and the plan's flags it does not list.
import { shlexSplit } from '../../core/candidates/shell';
import { loadSnapshotFiles } from '../../core/config/snapshot-flags';
import { frameworkSpec } from '../../core/frameworks';
import type { FrameworkKey } from '../../core/frameworks/types';
import type { PlanFramework, RunPlan } from '../../core/plan/types';
import type { Executor } from '../../exec';
import type { RunDir } from '../artifacts';
import { captureHelp, captureVersion, recheckAgainstHelp } from '../preflight';
import { ok, problem, warn, type DoctorCheck } from './types';

/** The fix when the CLI is not on the host's PATH. */
function installFix(fw: FrameworkKey, prog: string): string {
  return `install ${frameworkSpec(fw).displayName} on the host so that '${prog}' is on the PATH its sessions get, or give its full path in the plan's frameworks.${fw}.server_command`;
}

/** `command -v PROG` on the host: its path, or undefined. */
async function whichOn(ex: Executor, prog: string): Promise<string | undefined> {
  const r = await ex
    .run(['sh', '-c', 'command -v "$1"', 'autobench-doctor', prog], {
      timeoutMs: 30_000,
    })
    .catch(() => undefined);
  const path = r?.code === 0 ? r.stdout.trim().split('\n')[0] : undefined;
  return path || undefined;
}

/** Why no flag list was captured, and what to do: the run falls back to the built-in flag table (a warning; a CLI that cannot run at all fails its smoke). */
function helpNotCaptured(fw: FrameworkKey, detail: string): DoctorCheck {
  const name = frameworkSpec(fw).displayName;
  const byHand = `capture the full flag list by hand on the host into a folder (${fw === 'vllm' ? 'vllm serve --help=<group> for each group' : 'the server command with --help'}) and give it with --help-dir`;
  if (/keyword|search/i.test(detail)) return warn('help', detail, `this ${name} answers --help=all with a keyword search (vLLM 0.9.2-0.10.2); upgrade it, or ${byHand}`);
  return warn('help', detail, byHand);
}

/** The captured help: how many flags it lists, or why none was captured. */
function helpCheck(fw: FrameworkKey, file: string | undefined, detail: string): { check: DoctorCheck; usable: boolean } {
  if (!file) return { check: helpNotCaptured(fw, detail), usable: false };
  const known = loadSnapshotFiles({ [fw]: [file] }).flags[fw];
  if (!known || known.flags.length === 0 || known.groupedSummaryOnly)
    return {
      check: helpNotCaptured(fw, `${detail}; it lists no flag`),
      usable: false,
    };
  return {
    check: ok('help', `${known.flags.length} flags (${detail})`),
    usable: true,
  };
}

/** The plan's flags the CLI does not list: the candidates re-judged against the captured help as preflight does, else as the plan was read (the built-in table or --help-dir). */
function planFlagsCheck(plan: RunPlan, entry: PlanFramework, file: string | undefined): DoctorCheck {
  const against = file ? `the captured help (${recheckAgainstHelp(plan, entry, file).label})` : entry.knownFrom;
  const skipped = entry.candidates.filter((c) => c.skip?.kind === 'unknown-flag');
  const reasons = [...new Set(skipped.map((c) => c.skip?.reason ?? ''))];
  if (!skipped.length) return ok('plan-flags', `every flag of the plan's ${entry.candidates.length} candidate(s) is in ${against}`);
  const detail = `${skipped.length} of ${entry.candidates.length} candidate(s) use flags ${against} does not list: ${reasons.join('; ')}`;
  const fix = `remove or rename those flags in the plan's frameworks.${entry.framework} section (the installed version's --help names its flags)`;
  return skipped.length === entry.candidates.length ? problem('plan-flags', `${detail}; no candidate can run`, fix) : warn('plan-flags', `${detail}; those candidates are skipped`, fix);
}

/** CLI, version, help and plan flags of one framework; `entry` is the plan's (absent without a plan). */
export async function frameworkChecks(ex: Executor, host: string, dir: RunDir, fw: FrameworkKey, serverCommand: string, plan: RunPlan | undefined, entry: PlanFramework | undefined): Promise<DoctorCheck[]> {
  const prog = shlexSplit(serverCommand)[0] ?? '';
  const path = await whichOn(ex, prog);
  if (!path) return [problem('cli', `'${prog}' is not on the PATH of ${host}`, installFix(fw, prog))];
  const out: DoctorCheck[] = [ok('cli', path)];
  const ver = await captureVersion(ex, fw, serverCommand);
  out.push(
    ver.version
      ? ok('version', `${ver.version} (read with \`${ver.command?.join(' ') ?? '?'}\`)`)
      : warn('version', 'no version found', `rows record the version as unknown and the calibration store cannot key by it; make \`${prog} --version\` or the Python package's __version__ answer`),
  );
  const help = await captureHelp(ex, dir, fw, serverCommand, fw);
  const h = helpCheck(fw, help.file ? dir.path(help.file) : undefined, help.detail);
  out.push(h.check);
  if (plan && entry) out.push(planFlagsCheck(plan, entry, h.usable && help.file ? dir.path(help.file) : undefined));
  return out;
}
