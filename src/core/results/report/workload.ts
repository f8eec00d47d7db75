// The workload facts: model, dataset kind, each scenario's lengths, prompts, dataset path, endpoint,
// traffic settings and load clients, from the run facts first and then the rows.
import type { RunFacts } from '../run-facts';
import { scenarioLengths } from '../handoff';
import type { Fact } from '../report-model';
import { clientOf, distinct, manifestThenRows, strAt } from './values';
import type { Work } from './work';

export interface WorkloadSection {
  facts: Fact[];
  /** Also read by the title (one model) and the caveats (synthetic kinds, mixed clients). */
  models: string[];
  kinds: string[];
  clients: string[];
}

function lengthsText(work: readonly Work[], runFacts: RunFacts | undefined, sc: string): string {
  const l = scenarioLengths(work.filter((w) => w.scenario === sc).map((w) => w.row), runFacts?.scenarios.find((s) => s.name === sc));
  return l.kind === 'exact' ? `${l.inputLen} → ${l.outputLen} tokens` : l.kind === 'buckets' ? `input p50 ${l.inputP50} / p95 ${l.inputP95}, output p50 ${l.outputP50} / p95 ${l.outputP95} tokens` : 'lengths not recorded';
}

function trafficText(work: readonly Work[]): string {
  const traffic = distinct(
    work.map((w) => {
      const rate = strAt(w.row, 'trial.rate') || strAt(w.row, 'workload.request_rate');
      const conc = strAt(w.row, 'trial.concurrency') || strAt(w.row, 'workload.max_concurrency');
      return rate || conc ? `rate ${rate || 'unlimited'}, concurrency ${conc || 'unlimited'}` : '';
    }),
  );
  return traffic.length ? traffic.slice(0, 8).join('; ') + (traffic.length > 8 ? `; … (${traffic.length} settings)` : '') : '';
}

export function workloadSection(work: readonly Work[], runFacts: RunFacts | undefined, scenarios: readonly string[]): WorkloadSection {
  const facts: Fact[] = [];
  const add = (label: string, values: string[]) => {
    if (values.length) facts.push({ label, value: values.join(', ') });
  };
  const models = manifestThenRows(runFacts?.model, work, 'model');
  add('Model', models);
  const kinds = manifestThenRows(runFacts?.datasetKind, work, 'workload.kind');
  add('Dataset kind', kinds);
  for (const sc of scenarios) facts.push({ label: `Scenario ${sc}`, value: lengthsText(work, runFacts, sc) });
  add('Prompts per measurement', manifestThenRows(runFacts?.numPrompts !== undefined ? String(runFacts.numPrompts) : undefined, work, 'workload.num_prompts'));
  add('Dataset path', manifestThenRows(runFacts?.canonicalJsonl, work, 'workload.dataset_path'));
  add('Endpoint', manifestThenRows(runFacts?.endpoint, work, 'workload.endpoint'));
  const traffic = trafficText(work);
  if (traffic) facts.push({ label: 'Traffic', value: traffic });
  const clients = distinct(work.map((w) => clientOf(w.row)));
  add('Load client', clients);
  return { facts, models, kinds, clients };
}
