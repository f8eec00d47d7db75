// What `autobench run` shows: one rewritten status line on a TTY (plain lines elsewhere) while trials go, and the final summary table.
import { join, relative } from 'node:path';
import type { RunEvent, RunResult } from '../runner';
import { styleFor } from './colors';
import { problemText } from '../core/results/outcome-text';
import { redactSecrets } from '../core/secrets';
import type { CliIO } from './validate';

const fmt = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined ? '-' : x.toFixed(digits));

/** What the terminal shows while a run goes: one rewritten status line on a TTY, plain lines elsewhere. */
export class Progress {
  private line = '';
  private readonly tty: boolean;
  private current = '';

  constructor(
    private readonly io: CliIO,
    private readonly quiet: boolean,
  ) {
    this.tty = Boolean(io.err.isTTY) && process.env.TERM !== 'dumb';
  }

  private say(s: string): void {
    if (this.quiet) return;
    this.clear();
    this.io.err.write(`${s}\n`);
  }

  private status(s: string): void {
    if (this.quiet || !this.tty) return;
    const cols = this.io.err.columns || 120;
    this.line = s.slice(0, cols - 1);
    this.io.err.write(`\r${this.line}\u001b[K`);
  }

  clear(): void {
    if (this.line) this.io.err.write('\r\u001b[K');
    this.line = '';
  }

  on(e: RunEvent): void {
    const st = styleFor(this.io.err);
    switch (e.type) {
      case 'run-start':
        this.say(`${st.bold(`run ${e.runId}`)} -> ${e.outDir}${e.resumed ? ` (resumed: ${e.finishedTrials} finished rows kept${e.movedAside ? `; ${e.movedAside} row(s) of a changed plan moved aside to rows.stale.jsonl, never reused` : ''})` : ''}`);
        if (e.simulated) this.say(st.yellow('target sim: the built-in SIMULATED engine; no number from this run is a GPU measurement'));
        for (const f of e.frameworks) this.say(`  ${f.framework.padEnd(13)} ${f.status === 'run' ? `${f.candidates} candidate(s)` : `${f.status}: ${f.reason ?? ''}`}`);
        break;
      case 'preflight':
        if (e.step === 'smoke' && e.status === 'start') this.current = `${e.framework ?? ''} preflight smoke`;
        if (e.status === 'start') this.status(`preflight ${e.framework ?? ''} ${e.step}...`);
        else if (e.status !== 'ok' || e.step === 'smoke' || e.step === 'version') this.say(`  ${e.status === 'ok' ? 'ok  ' : e.status === 'failed' ? st.red('FAIL') : st.yellow('warn')} preflight ${e.framework ?? 'gpu'} ${e.step}: ${e.detail ?? ''}`);
        break;
      case 'framework-start':
        this.say(st.bold(`${e.framework}: ${e.candidates} candidate(s)`));
        break;
      case 'candidate-start':
        this.current = `${e.framework} ${e.candidateId} (${e.index + 1}/${e.of})`;
        this.say(`  ${this.current}: ${st.dim(redactSecrets(e.command))}`);
        break;
      case 'candidate-end':
        if (e.status !== 'done') this.say(`    ${st.red(e.status)}: ${e.reason ?? ''}`);
        break;
      case 'server':
        if (e.state === 'launching' || e.state === 'waiting') this.status(`${this.current}: server ${e.state}...`);
        break;
      case 'trial-start':
        this.status(`${this.current} ${e.scenario} ${e.mode === 'search' ? `search round ${e.round}` : 'fixed'} @ ${e.rate} req/s c=${e.concurrency ?? '-'} | trial ${e.index}/${e.of}`);
        break;
      case 'trial-progress':
        this.status(
          `${this.current} ${e.scenario} ${e.mode === 'fixed' ? 'fixed' : `${e.mode === 'repeat' ? 'repeat' : 'r'}${e.round}`} @ ${e.rate} offered | ${e.completed + e.failed}/${e.total} req | ${fmt(e.requestsPerS)} req/s achieved TTFT ${fmt(e.ttftMsP50, 0)} ms TPOT ${fmt(e.tpotMsP50)} ms`,
        );
        break;
      case 'trial-end': {
        if (e.resumed) break;
        const verdict = e.status !== 'ok' ? st.red(e.status) : e.slaPassed ? 'SLA pass' : st.yellow(`SLA fail (${e.reasons.join('; ')})`);
        this.say(`    ${e.scenario} ${e.mode === 'fixed' ? 'fixed' : `${e.mode === 'repeat' ? 'repeat' : 'round'} ${e.round}`} @ ${e.rate} req/s offered c=${e.concurrency ?? '-'}: ${fmt(e.requestThroughput, 2)} req/s achieved, p50 TTFT ${fmt(e.p50TtftMs, 0)} ms, p50 TPOT ${fmt(e.p50TpotMs, 2)} ms — ${verdict}`);
        break;
      }
      case 'framework-end':
        if (e.outcome === 'stopped-early') this.say(st.yellow(`  ${e.framework} stopped early: ${e.reason ?? ''}`));
        else if (e.outcome === 'skipped' || e.outcome === 'user_excluded') this.say(`${e.framework}: ${e.outcome}${e.reason ? ` (${e.reason})` : ''}`);
        break;
      case 'log':
        if (e.level === 'warn') this.say(st.yellow(`warning: ${e.message}`));
        break;
      case 'row':
      case 'run-end':
        break;
    }
  }
}

export function printSummary(io: CliIO, result: RunResult): void {
  const st = styleFor(io.out);
  const model = result.report;
  if (!result.summary || !model) return;
  const head = ['Scenario', 'Rank', 'Framework', 'Candidate', 'Achieved req/s', 'Output tok/s', 'P50 TTFT ms', 'P50 TPOT ms'];
  const lines: string[][] = [];
  for (const b of model.best) {
    const c = model.candidates[b.row];
    if (!c) continue;
    lines.push([b.scenario, b.tied ? `${b.rank} (tie)` : String(b.rank), b.framework, c.candidate, fmt(c.rps, 2), fmt(c.otps, 0), fmt(c.ttft, 0), fmt(c.tpot, 2)]);
  }
  io.out.write(`\n${st.bold(`Verdict${result.simulated ? ' (SIMULATED)' : ''}`)}\n`);
  for (const v of model.verdicts) {
    const outcome = v.outcome ?? (v.decided ? 'winner' : v.winner ? 'undecided' : 'none');
    const word = outcome === 'winner' ? st.green('winner') : outcome === 'equivalent' ? st.green('equivalent') : outcome === 'undecided' ? st.yellow('undecided') : st.red('none');
    io.out.write(`  ${word}  ${v.summary}\n`);
  }
  const stages = model.limitingStages ?? [];
  if (stages.length) {
    io.out.write(`\n${st.bold(`P/D units: the limiting stage${result.simulated ? ' (SIMULATED)' : ''}`)}\n`);
    for (const s of stages) io.out.write(`  ${s.scenario}  ${s.framework} ${s.candidate}: ${s.stage} (${s.because})\n`);
  }
  io.out.write(`\n${st.bold(`Best under the SLA${result.simulated ? ' (SIMULATED)' : ''}`)}\n`);
  if (lines.length === 0) io.out.write('  no candidate met the SLA in any scenario\n');
  else {
    const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
    const row = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
    io.out.write(`${row(head)}\n${row(widths.map((w) => '-'.repeat(w)))}\n`);
    for (const l of lines) io.out.write(`${row(l)}\n`);
  }
  const o = model.outcome;
  io.out.write(`\n${st.bold('Outcome')}${result.simulated ? ' (SIMULATED)' : ''}: ${o.headline}\n`);
  if (o.counts.measured === 0) io.out.write(`${st.yellow('warning')}: nothing was measured${o.firstProblem ? `: ${problemText(o.firstProblem)}` : ''}\n`);
  const rel = (p: string) => {
    const r = relative(process.cwd(), p);
    return r && !r.startsWith('..') ? r : p;
  };
  io.out.write(`report: ${rel(result.summary.markdown)}\n`);
  io.out.write(`        ${rel(result.summary.csv)}${result.summary.html ? `, ${rel(result.summary.html)}` : ''}, ${rel(result.summary.json)}\n`);
  io.out.write(`rows:   ${rel(join(result.outDir, 'rows.jsonl'))}\n`);
}
