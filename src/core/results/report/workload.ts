// The workload facts: model, dataset kind, each scenario's lengths, prompts, dataset path, endpoint,
// traffic settings and load clients, from the run facts first and then the rows.
import { commandSpeculative, speculativeKey } from '../../frameworks/speculative';
import { pyGet } from '../../py/ops';
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

/** Random-id and random-word prompts make a draft model guess worse than text does (vLLM #52536). */
const RANDOM_KINDS = new Set(['random', 'random-ids']);

/** Candidates whose rows set a speculative decoding flag (server_flags, else the server command), as `framework id`. */
export function speculativeRows(work: readonly Work[]): string[] {
  return distinct(
    work.map((w) => {
      const flags = pyGet(w.row, 'server_flags');
      const on = (flags instanceof Map && speculativeKey(flags)) || commandSpeculative(strAt(w.row, 'server_command'));
      return on ? `${w.framework} ${strAt(w.row, 'candidate_id')}`.trim() : '';
    }),
  );
}

/** The stated caveat for a random workload measured on speculative candidates, or undefined. */
export function speculativeCaveat(kinds: readonly string[], work: readonly Work[]): string | undefined {
  const random = kinds.filter((k) => RANDOM_KINDS.has(k));
  const spec = speculativeRows(work);
  if (!random.length || !spec.length) return undefined;
  const list = spec.slice(0, 4).join(', ') + (spec.length > 4 ? `, … (${spec.length})` : '');
  return `${random.join(', ')} prompts understate speculative decoding acceptance (random tokens are hard for a draft to guess), so ${list} read lower than on real text; measure them with dataset.kind builtin-text or your own prompts.`;
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
  const caveat = speculativeCaveat(kinds, work);
  if (caveat) facts.push({ label: 'Speculative decoding', value: caveat });
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
