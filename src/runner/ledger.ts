// What a run directory already holds, by trial key: a resumed run asks here before it measures, and replays rate searches from the recorded verdicts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Candidate } from '../core/candidates/candidate';
import type { Scenario } from '../core/config/model';
import type { RunPlan } from '../core/plan/types';
import type { FrameworkKey } from '../core/frameworks/types';
import type { ResultRow, RowStatus } from '../core/results/rows';
import { groupAlive, terminateGroup } from '../exec/process-group';
import { candidateKey, keyDigest, trialKey } from './artifacts';
import type { LiveRecord } from './run-manifest';
import { newSearch, nextRate, recordRound, type PriorVerdict } from './rate-search';
import type { RowTrial } from './row-builder';

export class Ledger {
  private readonly done = new Map<string, ResultRow>();

  /** `scrub`: how rows were redacted when written, so a command compares equal to its recorded form. */
  constructor(
    private readonly plan: RunPlan,
    private readonly scrub: (s: string) => string,
    private readonly clientVersion: string,
  ) {}

  get size(): number {
    return this.done.size;
  }

  /** Every finished row of one framework, in the order they were added. */
  rowsOf(fw: FrameworkKey): ResultRow[] {
    return [...this.done.values()].filter((r) => r.framework === fw);
  }

  add(row: ResultRow): void {
    const key = (row.trial as RowTrial | undefined)?.key;
    if (key) this.done.set(key, row);
  }

  /**
   * What defines a candidate's trials on a scenario: the command, the workload (kind, lengths, prompts, seed,
   * endpoint, request body), the SLA and the client. A row whose key carries another digest is from a changed plan.
   */
  digest(fw: FrameworkKey, cand: Candidate | undefined, sc: Scenario): string {
    const p = this.plan;
    const b = p.bench;
    const facts = {
      command: cand ? this.scrub(cand.command) : this.scrub(p.frameworks.find((f) => f.framework === fw)?.serverCommand ?? ''),
      scenario: [sc.name, sc.inputLen, sc.outputLen],
      // A dataset beyond the random-length kinds adds its file and options (the random kinds' digests stay as they were).
      workload: ['random', 'random-ids'].includes(b.datasetKind) ? [b.datasetKind, b.numPrompts, b.seed, b.endpoint, b.extraBody] : [b.datasetKind, b.numPrompts, b.seed, b.endpoint, b.extraBody, b.dataset.path ?? null, b.dataset.options],
      sla: p.sla.limits,
      client: this.clientVersion,
    };
    return createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 16);
  }

  /** Rows of this directory a resume may keep (their digest is the current plan's) and the ones it must not reuse. */
  partition(rows: readonly ResultRow[]): { keep: ResultRow[]; stale: ResultRow[] } {
    const keep: ResultRow[] = [];
    const stale: ResultRow[] = [];
    for (const r of rows) (this.isCurrent(r) ? keep : stale).push(r);
    return { keep, stale };
  }

  private isCurrent(r: ResultRow): boolean {
    const key = (r.trial as RowTrial | undefined)?.key;
    const sc = this.plan.scenarios.find((s) => s.name === r.scenario);
    const f = this.plan.frameworks.find((x) => x.framework === r.framework);
    if (!key || !sc || !f) return false;
    const cand = r.candidate_id === undefined ? undefined : f.candidates.find((c) => c.id === String(r.candidate_id));
    if (r.candidate_id !== undefined && !cand) return false;
    return keyDigest(key) === this.digest(f.framework, cand, sc);
  }

  /** A finished row for this key whose command is still the candidate's (a changed plan measures again). */
  finished(key: string, cand: Candidate | undefined): ResultRow | undefined {
    const r = this.done.get(key);
    if (!r) return undefined;
    if (cand && r.server_command !== this.scrub(cand.command)) return undefined;
    return r;
  }

  /** How a candidate went in an earlier run: 'ok', a launch failure, 'skip', or undefined when it still has work. */
  outcome(fw: FrameworkKey, cand: Candidate): RowStatus | 'ok' | 'skip' | undefined {
    if (!this.candidateDone(fw, cand)) return undefined;
    for (const sc of this.plan.scenarios) {
      const r = this.finished(candidateKey(fw, cand.id, sc.name, this.digest(fw, cand, sc)), cand);
      const phase = (r?.trial as RowTrial | undefined)?.phase;
      if (r && phase === 'launch') return r.status;
      if (r && phase === 'skip') return 'skip';
    }
    return 'ok';
  }

  /** True when every trial of the candidate (or a row speaking for it) is already recorded. */
  candidateDone(fw: FrameworkKey, cand: Candidate): boolean {
    return this.plan.scenarios.every((sc) => this.scenarioDone(fw, cand, sc));
  }

  scenarioDone(fw: FrameworkKey, cand: Candidate, sc: Scenario): boolean {
    const d = this.digest(fw, cand, sc);
    if (this.finished(candidateKey(fw, cand.id, sc.name, d), cand)) return true;
    const b = this.plan.bench;
    // The fixed points' verdicts, per concurrency: the search's rechecks follow from them (trial.ts), so its replay does too.
    const prior = new Map<number | null, PriorVerdict[]>();
    for (const p of b.fixed) {
      const row = this.finished(trialKey({ framework: fw, candidateId: cand.id, scenario: sc.name, mode: 'fixed', rate: p.rate, concurrency: p.concurrency, round: 0 }, d), cand);
      if (!row) return false;
      if (typeof p.rate === 'number' && row.status === 'ok') prior.set(p.concurrency, [...(prior.get(p.concurrency) ?? []), { rate: p.rate, passed: row.sla?.passed === true }]);
    }
    if (!b.search) return true;
    for (const c of b.search.concurrencies) {
      const state = newSearch(prior.get(c) ?? []);
      for (let rate = nextRate(b.search, state); rate !== undefined; rate = nextRate(b.search, state)) {
        const r = this.finished(trialKey({ framework: fw, candidateId: cand.id, scenario: sc.name, mode: 'search', rate, concurrency: c, round: state.rounds.length + 1 }, d), cand);
        if (!r) return false;
        recordRound(state, rate, r.status === 'ok' && r.sla?.passed === true);
      }
    }
    return true;
  }
}

/** The command line of a group's leader, or undefined when the leader has exited. */
function leaderCmdline(pgid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pgid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

/**
 * Servers a killed runner of this directory left behind: on this machine (sim, local) each process
 * group still alive whose program is the recorded one is stopped, so it holds no port or GPU the
 * resumed run needs. Returns what it did and what it could not check, as log lines.
 */
export async function reapLeftovers(list: readonly LiveRecord[], target: string, graceMs: number): Promise<string[]> {
  const said: string[] = [];
  for (const l of list) {
    if (l.target !== target || target.startsWith('ssh:') || !groupAlive(l.pgid)) continue;
    const leader = leaderCmdline(l.pgid);
    // A recycled pid running something else is left alone. With the leader gone, the group's id cannot have been
    // reused while members live (the kernel keeps a live group's id): they are the server's (vLLM's EngineCore, an MPI worker).
    if (leader !== undefined && !leader.includes(l.program) && !leader.includes('sim.js')) continue;
    const what = leader === undefined ? ', its leader gone, its workers still running' : '';
    said.push(`stopping a server the interrupted run left behind: process group ${l.pgid} (${l.framework} ${l.candidate}${what})`);
    await terminateGroup(l.pgid, graceMs);
  }
  return said;
}
