// The SLA the report judged by: from the run facts when given, else the rows' own sla blocks (one
// common set, or each row on its own); its limits as facts, and the deprecated keys applied.
import { pyGet } from '../../py/ops';
import type { RunFacts } from '../run-facts';
import type { Fact } from '../report-model';
import { limitsFrom, shortNumber, slaLabel, type SlaKey, type SlaLimits } from '../sla';
import type { Work } from './work';
import { slaTarget } from '../../sla/limits';

export interface SlaSection {
  facts: Fact[];
  /** The one set of limits in force; empty when none or when rows disagree. */
  limits: SlaLimits;
  deprecatedKeys: Set<string>;
}

export function slaSection(work: readonly Work[], runFacts: RunFacts | undefined, manifestFile: string | undefined): SlaSection {
  const facts: Fact[] = [];
  let limits: SlaLimits = {};
  const deprecatedKeys = new Set<string>();
  if (runFacts?.sla) {
    limits = runFacts.sla.limits;
    runFacts.sla.deprecated.forEach((k) => deprecatedKeys.add(k));
    facts.push({ label: 'Source', value: manifestFile ? `manifest (${manifestFile})` : 'manifest' });
  } else {
    const seen = new Map<string, SlaLimits>();
    for (const w of work) {
      const l = limitsFrom(pyGet(w.row, 'sla'));
      l.deprecated.forEach((k) => deprecatedKeys.add(k));
      seen.set(JSON.stringify(l.limits), l.limits);
    }
    const sets = [...seen.values()].filter((l) => Object.keys(l).length > 0);
    if (sets.length === 1) limits = sets[0] as SlaLimits;
    facts.push({ label: 'Source', value: sets.length === 0 ? 'none recorded (every ok row passes)' : sets.length === 1 ? 'the rows\u2019 sla blocks' : `the rows\u2019 sla blocks (${sets.length} different sets; each row judged on its own)` });
  }
  for (const [k, v] of Object.entries(limits) as Array<[SlaKey, number]>) {
    const dflt = runFacts?.sla?.defaulted?.includes(k) ? ' (default: the plan sets none)' : '';
    facts.push({ label: k, value: `${slaTarget(k).kind === 'min-rate' ? shortNumber(v) : `${shortNumber(v)} ms (${slaLabel(k)})`}${dflt}` });
  }
  return { facts, limits, deprecatedKeys };
}
