// The best command per framework × scenario (SLA-passing, never smoke, by the playbook's key), then
// those bests ranked across frameworks within each scenario; rank 1 is the scenario's winner.
import { tupleGt, tupleLt, type RankKey } from '../rank';
import type { BestEntry } from '../report-model';
import type { Work } from './work';

const desc = (a: { key: RankKey }, b: { key: RankKey }) => (tupleLt(b.key, a.key) ? -1 : tupleLt(a.key, b.key) ? 1 : 0);

export function bestEntries(work: readonly Work[], scenarios: readonly string[], frameworks: readonly string[]): BestEntry[] {
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
    const entries: Array<{ key: RankKey; fw: string; row: number }> = [];
    for (const fw of frameworks) {
      const i = bestOf.get(fw)?.get(sc);
      if (i !== undefined) entries.push({ key: (work[i] as Work).key, fw, row: i });
    }
    entries.sort(desc).forEach((e, r) => best.push({ scenario: sc, framework: e.fw, row: e.row, rank: r + 1 }));
  }
  return best;
}
