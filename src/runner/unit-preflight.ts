// Preflight of a framework's P/D units: the router's --help and version captured on the target (beside the workers',
// which are the framework's own), and every unit's router line checked against that help. A router that cannot run
// there, or a router option its help does not list, skips the units with the reason (no launch spends GPU time on it).
import type { Candidate } from '../core/candidates/candidate';
import type { PlanFramework } from '../core/plan/types';
import type { RunContext } from './context';

/** The router program's words: its argv up to the first long option (`python -m sglang_router.launch_router`). */
export function routerProgram(cand: Candidate): string[] {
  const argv = cand.unit?.processes.find((p) => p.role === 'router')?.argv ?? [];
  const i = argv.findIndex((a) => a.startsWith('--'));
  return i < 0 ? argv : argv.slice(0, i);
}

/** The long options a help text lists. */
export function helpOptions(text: string): Set<string> {
  // Underscores too: click options keep them (trtllm-serve disaggregated --config_file).
  return new Set(text.match(/--[a-z0-9][a-z0-9_-]*/gi) ?? []);
}

const lastLine = (s: string): string => s.trim().split('\n').pop() ?? '';

export interface RouterState {
  command: string;
  file?: string;
  ok: boolean;
  detail: string;
  version?: string;
}

async function captureRouter(ctx: RunContext, fw: string, program: string[]): Promise<{ state: RouterState; options?: Set<string> }> {
  const ex = ctx.target.executor;
  const command = [...program, '--help'].join(' ');
  try {
    const r = await ex.run([...program, '--help'], { timeoutMs: 120_000 });
    const text = r.stdout.trim() ? r.stdout : r.stderr;
    if (r.code !== 0 || !/--[a-z]/i.test(text)) return { state: { command, ok: false, detail: `${command}: exit ${r.code ?? r.signal}${r.stderr.trim() ? `: ${lastLine(r.stderr)}` : ''}` } };
    const file = ctx.dir.rel(ctx.dir.writeText(`help/${fw}_router_help.txt`, text));
    const v = await ex.run([...program, '--version'], { timeoutMs: 60_000 }).catch(() => undefined);
    const version = v && v.code === 0 ? /\d+\.\d+(?:\.\d+)?[\w.+-]*/.exec(v.stdout)?.[0] : undefined;
    const options = helpOptions(text);
    return { state: { command, file, ok: true, detail: `${command}: ${options.size} options`, ...(version ? { version } : {}) }, options };
  } catch (e) {
    return { state: { command, ok: false, detail: `${command}: ${(e as Error).message}` } };
  }
}

/** Captures the router's help and version once per framework with units, and skips the units it cannot run. */
export async function preflightUnits(ctx: RunContext, f: PlanFramework): Promise<RouterState | undefined> {
  const units = f.candidates.filter((c) => c.unit && !c.skip);
  const first = units[0];
  if (!first) return undefined;
  const fw = f.framework;
  const { state, options } = await captureRouter(ctx, fw, routerProgram(first));
  if (!options) {
    for (const c of units) c.skip = { reason: `the unit's router cannot run on the target (${state.detail})`, kind: 'unit' };
    return state;
  }
  for (const c of units) {
    const argv = c.unit?.processes.find((p) => p.role === 'router')?.argv ?? [];
    const missing = [...new Set(argv.filter((a) => a.startsWith('--') && !options.has(a.split('=')[0] as string)))];
    if (missing.length) c.skip = { reason: `router option${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not in the captured ${state.file ?? 'router help'}`, kind: 'unit' };
  }
  return state;
}
