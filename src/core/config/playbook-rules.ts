// The playbook validator's rules, with its exact error texts, plus the crashes it has turned into clear errors.
import { FRAMEWORKS, type FrameworkKey } from '../frameworks/types';
import { builtinFlag, frameworkSpec } from '../frameworks';
import { shlexSplit, ShellSyntaxError } from '../candidates/shell';
import type { FindingSink } from './context';
import { findFlag, knownFlagsFor, suggestFlags, type SnapshotFlags } from './known-flags';
import type { ConfigKind, FrameworkSection, PlaybookModel } from './model';
import { isPyInt, isPyMap, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import { nodeAt, type YamlPath } from './yaml-doc';
import type { TextEdit } from './finding';
import { PLAYBOOK_SLA_KEYS, SLA_REPLACEMENTS } from '../sla/limits';

export const DEFAULT_MAX_CANDIDATES = 10;

function get(m: PyValue | undefined, key: string): PyValue | undefined {
  return isPyMap(m) ? m.get(key) : undefined;
}

const pyList = (items: readonly string[]) => `[${items.map((s) => pyRepr(s)).join(', ')}]`;

/** Deletes the whole `key: value` entry at `path` (its lines), for "remove" quick fixes. */
export function removeEntryEdit(sink: FindingSink, path: YamlPath, text: string): TextEdit | undefined {
  const keyRange = sink.rangeOf(path, true);
  const valueRange = sink.rangeOf(path, false);
  const lineStart = text.lastIndexOf('\n', keyRange[0] - 1) + 1;
  if (text.slice(lineStart, keyRange[0]).trim() !== '') return undefined;
  let end = Math.max(keyRange[1], valueRange[1]);
  // A block value's range already ends after its last line break.
  if (text[end - 1] !== '\n') {
    const nl = text.indexOf('\n', end);
    end = nl === -1 ? text.length : nl + 1;
  }
  return { range: [lineStart, end], newText: '' };
}

/** Adds `line` as the last entry of the block mapping at `path`, indented like its first key. */
export function appendEntryEdit(sink: FindingSink, path: YamlPath, line: string, text: string): TextEdit | undefined {
  const node = nodeAt(sink.root, path);
  const entries = node?.entries;
  if (node?.kind !== 'map' || !entries || entries.length === 0) return undefined;
  const firstKey = entries[0]!.keyRange[0];
  const lineStart = text.lastIndexOf('\n', firstKey - 1) + 1;
  const indent = text.slice(lineStart, firstKey);
  if (indent.trim() !== '') return undefined; // a flow mapping: leave it to the user
  const last = entries[entries.length - 1]!;
  const end = Math.max(last.keyRange[1], last.node.range[1]);
  const nl = text.indexOf('\n', end);
  const at = nl === -1 ? text.length : nl + 1;
  return { range: [at, at], newText: `${nl === -1 ? '\n' : ''}${indent}${line}\n` };
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
  if (typeof name === 'string' && name !== '') model.modelName = name;
  else if (name === undefined || name === null || name === '' || name === false) sink.error('model-name', 'model.name must be set', ['model', 'name']);
  else model.modelName = pyStr(name);
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

function frameworkSet(root: PyMap): Set<string> | undefined {
  const set = get(root.get('benchmark'), 'framework_set');
  return Array.isArray(set) ? new Set(set.filter((x): x is string => typeof x === 'string')) : undefined;
}

function checkFrameworks(sink: FindingSink, root: PyMap, model: PlaybookModel, snapshots: SnapshotFlags | undefined, text: string): void {
  const fws = root.get('frameworks');
  if (!isPyMap(fws)) {
    sink.error('frameworks-mapping', 'frameworks must be a mapping', ['frameworks']);
    return;
  }
  const chosen = frameworkSet(root);
  for (const fw of FRAMEWORKS) {
    if (!fws.has(fw)) {
      sink.error('missing-framework', `missing frameworks.${fw}`, ['frameworks']);
      continue;
    }
    const section = fws.get(fw);
    const at: YamlPath = ['frameworks', fw];
    if (!isPyMap(section)) {
      sink.error('framework-mapping', `${fw}: section must be a mapping with at least 'enabled: true' or 'enabled: false'`, at);
      continue;
    }
    const enabledRaw = section.has('enabled') ? section.get('enabled') : true;
    if (typeof enabledRaw !== 'boolean') {
      sink.error('enabled-bool', `${fw}: enabled must be true or false, got ${pyRepr(enabledRaw ?? null)}`, [...at, 'enabled']);
      continue;
    }
    const excludedBySet = chosen !== undefined && !chosen.has(fw);
    const sec: FrameworkSection = {
      framework: fw,
      enabled: enabledRaw && !excludedBySet,
      userExcluded: !enabledRaw || excludedBySet,
      usable: false,
      serverCommand: frameworkSpec(fw).defaultServerCommand,
      base: new Map(),
      searchSpace: new Map(),
      known: knownFlagsFor(fw, snapshots),
    };
    model.frameworks.push(sec);
    if (!sec.enabled) continue;
    checkEnabledFramework(sink, fw, section, sec, model, text);
  }
}

function checkEnabledFramework(sink: FindingSink, fw: FrameworkKey, section: PyMap, sec: FrameworkSection, model: PlaybookModel, text: string): void {
  const at: YamlPath = ['frameworks', fw];
  const spec = frameworkSpec(fw);
  let usable = true;
  const base = section.get('base_server_flags');
  if (!isPyMap(base)) {
    sink.error('base-flags-mapping', `${fw}: base_server_flags must be a mapping`, [...at, 'base_server_flags']);
    usable = false;
  } else sec.base = base;
  const space = section.has('search_space') || model.kind === 'cookbook' ? section.get('search_space') : new Map();
  if (!isPyMap(space)) {
    sink.error('search-space-mapping', `${fw}: search_space must be a mapping`, [...at, 'search_space']);
    usable = false;
  } else sec.searchSpace = space;

  const cmd = section.get('server_command');
  if (model.kind === 'plan' && cmd === undefined) {
    // Runtime plans name no command: the framework's usual entry point is used.
  } else if (typeof cmd !== 'string') {
    sink.error('server-command', `${fw}: server_command must be a string`, [...at, 'server_command']);
    usable = false;
  } else {
    try {
      if (shlexSplit(cmd).length === 0) {
        sink.error('server-command-empty', `${fw}: server_command is empty; name the program that starts the server`, [...at, 'server_command']);
        usable = false;
      } else sec.serverCommand = cmd;
    } catch (e) {
      const why = e instanceof ShellSyntaxError ? e.message : String(e);
      sink.error('server-command-syntax', `${fw}: server_command cannot be split like a shell command (${why}); check its quotes`, [...at, 'server_command']);
      usable = false;
    }
  }

  // Unknown flags: every distinct key of base then search, in document order.
  const seen = new Set<string>();
  const known = sec.known;
  if (known.groupedSummaryOnly) {
    sink.error(
      'snapshot-grouped',
      `${fw}: the snapshot ${known.files.join(', ')} is vLLM's grouped help summary and lists no flags; capture \`vllm serve --help=all\``,
      at,
      { onKey: true },
    );
  }
  for (const [where, m] of [['base_server_flags', sec.base], ['search_space', sec.searchSpace]] as const) {
    for (const key of m.keys()) {
      const path: YamlPath = [...at, where, key as string];
      if (typeof key !== 'string') {
        sink.error('flag-key-string', `${fw}: flag name ${pyRepr(key)} in ${where} must be a string`, [...at, where], { onKey: true });
        usable = false;
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      if (known.groupedSummaryOnly || findFlag(known, key)) continue;
      const edit = removeEntryEdit(sink, path, text);
      const builtin = builtinFlag(fw, key);
      const sameFlag = builtin ? [builtin.key, ...(builtin.aliases ?? [])] : [];
      const keyRange = sink.rangeOf(path, true);
      const fixes = suggestFlags(known, key, sameFlag).map((s) => ({ title: `Replace with '${s}'`, edits: [{ range: keyRange, newText: s }] }));
      if (edit) fixes.push({ title: `Remove '${key}'`, edits: [edit] });
      sink.error('unknown-flag', `${fw}: unknown or unsupported server flag ${pyRepr(key)}`, path, { onKey: true, fixes });
    }
  }

  if (fw === 'tensorrt_llm') {
    if (section.get('backend_policy') !== 'fixed_pytorch') {
      const edit = section.has('backend_policy')
        ? { range: sink.rangeOf([...at, 'backend_policy']), newText: 'fixed_pytorch' }
        : appendEntryEdit(sink, at, 'backend_policy: fixed_pytorch', text);
      sink.error('trt-backend-policy', 'tensorrt_llm: backend_policy must be fixed_pytorch', [...at, 'backend_policy'], {
        ...(edit ? { fixes: [{ title: 'Set backend_policy to fixed_pytorch', edits: [edit] }] } : {}),
      });
    }
    if (sec.base.has('backend') && sec.base.get('backend') !== 'pytorch') {
      const p: YamlPath = [...at, 'base_server_flags', 'backend'];
      sink.error('trt-base-backend', 'tensorrt_llm: base backend must be pytorch', p, {
        fixes: [{ title: 'Set the TensorRT-LLM backend to pytorch', edits: [{ range: sink.rangeOf(p), newText: 'pytorch' }] }],
      });
    }
    if (sec.searchSpace.has('backend')) {
      sink.error('trt-backend-searched', 'tensorrt_llm: backend must not appear in search_space', [...at, 'search_space', 'backend'], { onKey: true });
    }
  }

  const R = model.requiredLength;
  // A base that is not a mapping was already reported; its limit would only repeat that error.
  if (R !== undefined && isPyMap(base)) {
    const key = spec.sequenceLimitKey;
    const baseLimit = sec.base.has(key) ? sec.base.get(key) : spec.sequenceLimitDefault === 'dataset' ? R : 0;
    const basePath: YamlPath = sec.base.has(key) ? [...at, 'base_server_flags', key] : [...at, 'base_server_flags'];
    if (!isPyInt(baseLimit ?? null)) {
      sink.error('seq-limit-int', `${fw}: base ${key} is not an integer`, basePath);
    } else if ((baseLimit as number) < R) {
      const edit = sec.base.has(key)
        ? { range: sink.rangeOf(basePath), newText: String(R) }
        : appendEntryEdit(sink, [...at, 'base_server_flags'], `${key}: ${R}`, text);
      sink.error('seq-limit-small', `${fw}: base ${key} (${pyStr(baseLimit as number)}) is smaller than the largest dataset scenario (${R})`, basePath, {
        onKey: !sec.base.has(key),
        ...(edit ? { fixes: [{ title: `Set ${key} to ${R}`, edits: [edit] }] } : {}),
      });
    }
    if (sec.searchSpace.has(key)) {
      const raw = sec.searchSpace.get(key) ?? null;
      const values = Array.isArray(raw) ? raw : [raw];
      values.forEach((v, i) => {
        const p: YamlPath = Array.isArray(raw) ? [...at, 'search_space', key, i] : [...at, 'search_space', key];
        if (!isPyInt(v)) sink.error('seq-limit-search-int', `${fw}: search_space ${key} candidate ${pyRepr(v)} is not an integer`, p);
        else if (v < R) {
          sink.error('seq-limit-search-small', `${fw}: search_space ${key} candidate ${pyStr(v)} is smaller than the largest dataset scenario (${R})`, p, {
            fixes: [{ title: `Raise this candidate to ${R}`, edits: [{ range: sink.rangeOf(p), newText: String(R) }] }],
          });
        }
      });
    }
  }
  sec.usable = usable;
}

function checkSla(sink: FindingSink, root: PyMap, model: PlaybookModel): void {
  const bench = root.get('benchmark');
  let path: YamlPath;
  let sla: PyValue | undefined;
  if (isPyMap(bench) && bench.has('sla')) {
    sla = bench.get('sla');
    path = ['benchmark', 'sla'];
  } else {
    sla = root.get('sla');
    path = ['sla'];
  }
  if (sla === undefined || sla === null) return;
  model.slaPath = path;
  if (!isPyMap(sla)) {
    sink.error('sla-mapping', 'sla must be a mapping', path);
    return;
  }
  const allowed = [...PLAYBOOK_SLA_KEYS].sort();
  for (const key of sla.keys()) {
    const k = pyStr(key);
    const p: YamlPath = [...path, typeof key === 'string' ? key : k];
    const replacement = SLA_REPLACEMENTS[k];
    if (replacement) {
      const keyRange = sink.rangeOf(p, true);
      sink.error('sla-deprecated', `sla: ${pyRepr(k)} is deprecated; use ${pyRepr(replacement)} (see references/result-schema.md)`, p, {
        onKey: true,
        fixes: [{ title: `Rename to '${replacement}'`, edits: [{ range: keyRange, newText: replacement }] }],
      });
    } else if (!(PLAYBOOK_SLA_KEYS as readonly string[]).includes(k)) {
      sink.error('sla-unknown', `sla: unknown key ${pyRepr(k)}; allowed keys are ${pyList(allowed)}`, p, { onKey: true });
    }
  }
}
