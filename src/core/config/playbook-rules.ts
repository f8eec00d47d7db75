// The playbook validator's rules in its order (root keys, dataset, search, frameworks, SLA), with its exact error texts, plus the crashes it has turned into clear errors.
import type { FindingSink } from './context';
import { checkFrameworks } from './framework-rules';
import type { SnapshotFlags } from './known-flags';
import type { ConfigKind, PlaybookModel } from './model';
import { isPyInt, isPyMap, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import { checkSla } from './sla-rules';

export const DEFAULT_MAX_CANDIDATES = 10;

function get(m: PyValue | undefined, key: string): PyValue | undefined {
  return isPyMap(m) ? m.get(key) : undefined;
}

export function runPlaybookRules(sink: FindingSink, root: PyValue | undefined, kind: ConfigKind, snapshots: SnapshotFlags | undefined, text: string): PlaybookModel {
  const model: PlaybookModel = {
    kind,
    modelName: undefined,
    tokenizer: undefined,
    scenarios: [],
    requiredLength: undefined,
    maxCandidates: DEFAULT_MAX_CANDIDATES,
    strategy: 'baseline_first_bounded_product',
    frameworks: [],
    slaPath: undefined,
  };
  if (!isPyMap(root)) {
    sink.error('not-a-mapping', 'expected a YAML mapping', []);
    return model;
  }

  if (kind === 'cookbook' && !(isPyInt(root.get('schema_version')) && root.get('schema_version') === 1)) {
    sink.error('schema-version', 'schema_version must be 1', ['schema_version']);
  }

  const modelSec = root.get('model');
  const name = get(modelSec, 'name');
  // The reference's test is `isinstance(name, str)`; an empty name is refused too (nothing to serve).
  if (typeof name === 'string' && name !== '') model.modelName = name;
  else sink.error('model-name', 'model.name must be set', ['model', 'name']);
  const tok = get(modelSec, 'tokenizer');
  model.tokenizer = typeof tok === 'string' ? tok : undefined;

  if (kind === 'cookbook') {
    const sourceKind = get(root.get('source'), 'kind');
    if (sourceKind !== 'llm_serving_cookbook') {
      sink.error('source-kind', "source.kind must be one of ['llm_serving_cookbook']", ['source', 'kind']);
    }
  }

  checkDataset(sink, root, model);
  checkSearch(sink, root, model);
  checkFrameworks(sink, root, model, snapshots, text);
  checkSla(sink, root, model);
  return model;
}

function checkDataset(sink: FindingSink, root: PyMap, model: PlaybookModel): void {
  const ds = root.get('dataset');
  const inputs = get(ds, 'input_len');
  const outputs = get(ds, 'output_len');
  if (!Array.isArray(inputs) || !Array.isArray(outputs)) {
    sink.error('dataset-lists', 'dataset.input_len and dataset.output_len must be lists', ['dataset', Array.isArray(inputs) ? 'output_len' : 'input_len']);
    return;
  }
  if (inputs.length !== outputs.length) {
    sink.error('dataset-aligned', 'dataset.input_len and dataset.output_len must be aligned', ['dataset', 'output_len']);
    return;
  }
  if (inputs.length === 0) {
    sink.error('dataset-empty', 'dataset.input_len and dataset.output_len must not be empty', ['dataset', 'input_len']);
    return;
  }
  const names = get(ds, 'scenario_names');
  let ok = true;
  inputs.forEach((inp, i) => {
    const out = outputs[i];
    for (const [v, key] of [[inp, 'input_len'], [out, 'output_len']] as const) {
      if (!isPyInt(v) || v < 0) {
        ok = false;
        sink.error('dataset-length', `dataset.${key}[${i}] must be a non-negative integer, got ${pyRepr(v ?? null)}`, ['dataset', key, i]);
      }
    }
    const nm = Array.isArray(names) ? names[i] : undefined;
    model.scenarios.push({ name: typeof nm === 'string' ? nm : `${pyStr(inp ?? null)}->${pyStr(out ?? null)}`, inputLen: Number(inp), outputLen: Number(out) });
  });
  if (ok) model.requiredLength = Math.max(...model.scenarios.map((s) => s.inputLen + s.outputLen));
  else model.scenarios = [];
}

function checkSearch(sink: FindingSink, root: PyMap, model: PlaybookModel): void {
  if (!root.has('search')) return;
  const search = root.get('search');
  if (!isPyMap(search)) {
    sink.error('search-mapping', 'search must be a mapping', ['search']);
    return;
  }
  if (search.has('max_candidates_per_framework')) {
    const max = search.get('max_candidates_per_framework');
    if (!isPyInt(max)) sink.error('max-candidates-int', 'search.max_candidates_per_framework must be an integer', ['search', 'max_candidates_per_framework']);
    else if (max <= 0) sink.error('max-candidates-positive', 'search.max_candidates_per_framework must be positive', ['search', 'max_candidates_per_framework']);
    else model.maxCandidates = max;
  }
  const gen = search.get('candidate_generation');
  if (gen === 'coverage_first') model.strategy = 'coverage_first';
}
