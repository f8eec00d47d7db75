// The dataset section's kinds checked as you type: each kind's required keys (a file kind's path, the gsp group sizes),
// its options' values, what needs the chat endpoint, and how scenarios relate to a kind that is not per-scenario.
import { FILE_KINDS, FILE_WHAT, OPTION_KEYS, optionGroupOf, optionValue, PER_SCENARIO_KINDS, type OptionGroup } from '../workload/dataset-keys';
import { DATASET_NAMES, type DatasetName } from '../workload/options';
import { isPyMap, toJson, type PyMap } from '../py/value';
import type { FindingSink } from './context';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const CHAT = '/v1/chat/completions';

export function checkDatasetKind(sink: FindingSink, root: PyMap): void {
  const raw = root.get('dataset');
  if (!isPyMap(raw)) return;
  const ds = toJson(raw) as Obj;
  const kind = ds.kind ?? 'random';
  if (typeof kind !== 'string' || !(DATASET_NAMES as readonly string[]).includes(kind)) return;
  const k = kind as DatasetName;
  checkPath(sink, ds, k);
  const group = optionGroupOf(k);
  if (group) checkOptions(sink, ds, k, group);
  for (const g of ['sharegpt', 'gsp', 'mooncake', 'trace'] as const) {
    if (g !== group && ds[g] !== undefined) sink.warn('dataset-options-unused', `dataset.${g} is read only by dataset.kind ${g === 'gsp' ? 'generated-shared-prefix' : g === 'trace' ? 'trace-csv' : g}; with kind ${k} it is ignored`, ['dataset', g], { onKey: true });
  }
  const endpoint = isPyMap(root.get('benchmark')) ? (root.get('benchmark') as PyMap).get('endpoint') : undefined;
  const turns = (g: OptionGroup, key: string): unknown => {
    const group = ds[g];
    return isObj(group) ? group[key] : undefined;
  };
  for (const [g, key] of [['gsp', 'num_turns'], ['mooncake', 'num_rounds']] as const) {
    const v = turns(g, key);
    if (g === group && typeof v === 'number' && v > 1 && endpoint !== CHAT) sink.error('dataset-needs-chat', `dataset.${g}.${key} ${v} sends later turns as chat messages: set benchmark.endpoint: ${CHAT}, or ${key}: 1`, ['dataset', g, key]);
  }
  checkScenarios(sink, ds, k);
}

/** A file kind needs its file; the other kinds read none. */
function checkPath(sink: FindingSink, ds: Obj, k: DatasetName): void {
  const path = typeof ds.path === 'string' && ds.path !== '' ? ds.path : undefined;
  const canonical = typeof ds.canonical_jsonl === 'string' && ds.canonical_jsonl !== '' ? ds.canonical_jsonl : undefined;
  if (FILE_KINDS.includes(k)) {
    if (path || (k === 'custom' && canonical)) return;
    const also = k === 'custom' ? ' (or dataset.canonical_jsonl)' : '';
    sink.error('dataset-path-missing', `dataset.kind ${k} needs dataset.path${also}: ${FILE_WHAT[k]}, relative to this file's folder or absolute`, ['dataset', 'kind']);
    return;
  }
  if (path) sink.warn('dataset-path-unused', `dataset.path is read only by dataset.kind ${FILE_KINDS.join(', ')}; kind ${k} builds its own prompts and ignores it`, ['dataset', 'path'], { onKey: true });
}

function checkOptions(sink: FindingSink, ds: Obj, k: DatasetName, group: OptionGroup): void {
  const given = ds[group];
  const table = OPTION_KEYS[group];
  if (given !== undefined && !isObj(given)) {
    sink.error('dataset-options', `dataset.${group} must be a mapping of ${Object.keys(table).join(', ')}`, ['dataset', group]);
    return;
  }
  const opts = isObj(given) ? given : {};
  const missing = Object.entries(table).filter(([key, spec]) => spec.required && opts[key] === undefined).map(([key]) => key);
  if (missing.length) {
    sink.error('dataset-options-missing', `dataset.kind ${k} needs dataset.${group}.${missing.join(` and dataset.${group}.`)} (each trial sends num_groups x prompts_per_group requests; num_prompts is not used), e.g. ${group}: {num_groups: 8, prompts_per_group: 10}`, isObj(given) ? ['dataset', group] : ['dataset', 'kind']);
  }
  for (const [key, v] of Object.entries(opts)) {
    const spec = table[key];
    if (!spec) {
      sink.warn('dataset-option-unknown', `dataset.${group}.${key} is not an option of ${k} (${Object.keys(table).join(', ')})`, ['dataset', group, key], { onKey: true });
      continue;
    }
    const r = optionValue(spec, v);
    if (!r.ok) sink.error('dataset-option-value', `dataset.${group}.${key} must be ${r.want}`, ['dataset', group, key]);
  }
}

/** A kind that is not per-scenario runs one scenario; more input_len/output_len pairs are only the first's. */
function checkScenarios(sink: FindingSink, ds: Obj, k: DatasetName): void {
  if (PER_SCENARIO_KINDS.includes(k)) return;
  const n = Array.isArray(ds.input_len) ? ds.input_len.length : 0;
  if (n <= 1) return;
  sink.warn(
    'dataset-one-scenario',
    `dataset.kind ${k} runs one scenario (scenario_names[0], else '${k}'): per-scenario input_len/output_len apply to ${PER_SCENARIO_KINDS.join(', ')} only; the first pair sizes the sequence-limit checks and predictions, the other ${n - 1} are not run`,
    ['dataset', 'input_len'],
  );
}
