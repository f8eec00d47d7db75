// Raw vs SLA-passing throughput per scenario × framework: the fastest measured row (ok, not smoke)
// beside the best that met the SLA, so a fast but SLA-failing candidate is visible.
import { pyGet } from '../../py/ops';
import type { BestEntry, CandidateRow, ThroughputEntry } from '../report-model';
import type { Work } from './work';

function rawBest(work: readonly Work[], candidates: readonly CandidateRow[], sc: string, fw: string): { rawBest: number | null; rawRow: number | null } {
  let rawRow: number | null = null;
  let best: number | null = null;
  work.forEach((w, i) => {
    if (w.scenario !== sc || w.framework !== fw || pyGet(w.row, 'status') !== 'ok' || w.smoke) return;
    const rps = candidates[i]?.rps ?? null;
    if (rps !== null && (best === null || rps > best)) {
      best = rps;
      rawRow = i;
    }
  });
  return { rawBest: best, rawRow };
}

export function throughputEntries(work: readonly Work[], candidates: readonly CandidateRow[], best: readonly BestEntry[], scenarios: readonly string[], frameworks: readonly string[]): ThroughputEntry[] {
  const throughput: ThroughputEntry[] = [];
  for (const sc of scenarios) {
    for (const fw of frameworks) {
      const raw = rawBest(work, candidates, sc, fw);
      const b = best.find((e) => e.scenario === sc && e.framework === fw);
      const slaRow = b ? b.row : null;
      const slaBest = slaRow === null ? null : (candidates[slaRow]?.rps ?? null);
      if (raw.rawRow === null && slaRow === null && !work.some((w) => w.scenario === sc && w.framework === fw)) continue;
      throughput.push({ scenario: sc, framework: fw, rawBest: raw.rawBest, rawRow: raw.rawRow, slaBest, slaRow });
    }
  }
  return throughput;
}
