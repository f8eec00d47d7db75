// `autobench doctor`'s report as text (the CLI's output, the editor's Output channel): a block per scope, a line per check, the fix under each warning and problem, and a closing verdict.
import type { CheckStatus, DoctorReport } from './types';

/** Colours for a terminal; none by default. */
export interface DoctorPaint {
  status(s: CheckStatus, text: string): string;
  bold(text: string): string;
}

const PLAIN: DoctorPaint = { status: (_s, t) => t, bold: (t) => t };
const MARK: Record<CheckStatus, string> = { ok: 'ok', warn: 'warn', problem: 'PROBLEM' };

/** "1 problem, 2 warnings". */
export function doctorCounts(r: DoctorReport): { problems: number; warnings: number; text: string } {
  const all = r.sections.flatMap((s) => s.checks);
  const problems = all.filter((c) => c.status === 'problem').length;
  const warnings = all.filter((c) => c.status === 'warn').length;
  return { problems, warnings, text: `${problems} problem${problems === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}` };
}

export function formatDoctor(r: DoctorReport, paint: DoctorPaint = PLAIN): string {
  const lines = [`autobench doctor: --target ${r.target} (servers would run on ${r.host}${r.simulated ? '; SIMULATED engines' : ''})`, ''];
  for (const s of r.sections) {
    lines.push(paint.bold(s.command ? `${s.scope}  (${s.command})` : s.scope));
    for (const c of s.checks) {
      lines.push(`  ${paint.status(c.status, MARK[c.status].padEnd(8))} ${c.name.padEnd(11)} ${c.detail}`);
      if (c.fix) lines.push(`  ${' '.repeat(8)} ${' '.repeat(11)} fix: ${c.fix}`);
    }
    lines.push('');
  }
  const { text } = doctorCounts(r);
  lines.push(r.ok ? `${text}: a run can start` : `${text}: a run cannot start until the problems are fixed`);
  return `${lines.join('\n')}\n`;
}
