// The best command per framework × scenario (SLA-passing, never smoke, by the playbook's key), then
// those bests ranked across frameworks within each scenario (by the scenario's verdict when it has one); rank 1 is the scenario's winner, or the top of a tie.
import { tupleGt, tupleLt, type RankKey } from '../rank';
import type { BestEntry } from '../report-model';
import type { CandidateScore, ScenarioVerdict } from '../verdict';
import type { Work } from './work';

const desc = (a: { key: RankKey }, b: { key: RankKey }) => (tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0);

/** Per framework its top candidate in the scenario's verdict, in verdict order; tied with the top when inside its noise. */
function fromVerdict(v: ScenarioVerdict, frameworks: readonly string[]): BestEntry[] {
  const out: BestEntry[] = [];
  const tied = new Set([v.winner, ...v.ties].filter((c): c is CandidateScore => c !== null && !v.decided));
  for (const c of v.ranked) {
    if (!frameworks.includes(c.framework) || out.some((b) => b.framework === c.framework)) continue;
    out.push({ scenario: v.scenario, framework: c.framework, row: c.row, rank: out.length + 1, tied: tied.has(c) });
  }
  return out;
}

export function bestEntries(work: readonly Work[], scenarios: readonly string[], frameworks: readonly string[], verdicts: readonly ScenarioVerdict[]): BestEntry[] {
  const bestOf = new Map<string, Map<string, number>>();
  work.forEach((w, i) => {
    if (!w.eligible) return;
    let bySc = bestOf.get(w.framework);
    if (!bySc) bestOf.set(w.framework, (bySc = new Map<string, number>()));
    const cur = bySc.get(w.scenario);
    if (cur === undefined || tupleGt(w.key, (work[cur] as Work).key)) bySc.set(w.scenario, i);
  });
  const best: BestEntry[] = [];
  for (const sc of scenarios) {
    const v = verdicts.find((x) => x.scenario === sc);
    if (v && v.ranked.length) {
      best.push(...fromVerdict(v, frameworks));
      continue;
    }
    const entries: Array<{ key: RankKey; fw: string; row: number }> = [];
    for (const fw of frameworks) {
      const i = bestOf.get(fw)?.get(sc);
      if (i !== undefined) entries.push({ key: (work[i] as Work).key, fw, row: i });
    }
    entries.sort(desc).forEach((e, r) => best.push({ scenario: sc, framework: e.fw, row: e.row, rank: r + 1, tied: false }));
  }
  return best;
}
