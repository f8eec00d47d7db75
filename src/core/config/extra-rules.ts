// Our checks beyond the playbook's: mistakes that pass its validator but waste a GPU run or skew a comparison.
import { checkDatasetKind } from './dataset-rules';
import { checkUnits } from './disagg-rules';
import { checkObjective } from './objective-rules';
import { frameworkSpec } from '../frameworks';
import type { FrameworkKey } from '../frameworks/types';
import { looksSecret, secretNamedValue } from '../secrets';
import type { FindingSink } from './context';
import { findFlag } from './known-flags';
import type { FrameworkCandidates, FrameworkSection, PlaybookModel } from './model';
import { appendEntryEdit, removeEntryEdit } from './edits';
import type { Fix } from './finding';
import { isPyInt, isPyMap, pyEqual, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import type { DocNode, YamlPath } from './yaml-doc';
import { checkRequestBody } from './request-fields';

const norm = (k: string) => k.replace(/-/g, '_');

/** The first key of `keys` (any alias spelling) present in `m`. */
function pick(m: PyMap, keys: readonly string[]): string | undefined {
  const want = new Set(keys.map(norm));
  for (const k of m.keys()) if (typeof k === 'string' && want.has(norm(k))) return k;
  return undefined;
}

function truthy(v: PyValue | undefined): boolean {
  return !(v === undefined || v === null || v === false || v === 0 || v === '');
}

function valuesOf(v: PyValue | undefined): PyValue[] {
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}

/** A smoke-only flag matters when it is on, or (for backend choices) set to `disabled`. */
function turnsGraphsOff(v: PyValue): boolean {
  return v === true || (typeof v === 'string' && /^(disabled|none|off|eager)$/i.test(v));
}

/** Moves a searched key into base_server_flags with its first value (kept if base already sets it). */
function moveToBaseFix(sink: FindingSink, sec: FrameworkSection, at: YamlPath, key: string): Fix[] {
  const text = sink.text;
  const remove = removeEntryEdit(sink, [...at, 'search_space', key], text);
  if (!remove) return [];
  const first = valuesOf(sec.searchSpace.get(key))[0];
  if (sec.base.has(key) || first === undefined) return [{ title: `Keep ${key} fixed in base_server_flags`, edits: [remove] }];
  const add = appendEntryEdit(sink, [...at, 'base_server_flags'], `${key}: ${pyStr(first)}`, text);
  return add ? [{ title: `Move ${key} to base_server_flags (${pyStr(first)})`, edits: [add, remove] }] : [];
}

function isSmokePlan(root: PyMap): boolean {
  const search = root.get('search');
  if (!isPyMap(search)) return false;
  return search.get('smoke') === true || search.get('tier') === 0;
}

function tier(root: PyMap): number {
  const t = isPyMap(root.get('search')) ? (root.get('search') as PyMap).get('tier') : undefined;
  return isPyInt(t) ? t : 2;
}

export function runExtraRules(sink: FindingSink, root: PyValue | undefined, model: PlaybookModel, plans: FrameworkCandidates[]): void {
  if (!isPyMap(root)) return;
  for (const sec of model.frameworks.filter((s) => s.enabled)) {
    const at: YamlPath = ['frameworks', sec.framework];
    checkKnobs(sink, root, sec, at);
    checkParallel(sink, root, model, sec, at);
    checkFairness(sink, model, sec, at);
    checkValues(sink, sec, at);
  }
  for (const plan of plans) checkBudget(sink, plan, model);
  for (const plan of plans) checkUnits(sink, plan.framework, plan.candidates.filter((c) => c.unit));
  checkRequestBody(sink, root, model);
  checkObjective(sink, root);
  checkDatasetKind(sink, root);
  checkSecrets(sink, sink.root, []);
}

function checkKnobs(sink: FindingSink, root: PyMap, sec: FrameworkSection, at: YamlPath): void {
  const spec = frameworkSpec(sec.framework);
  const fw = sec.framework;
  const smoke = isSmokePlan(root);
  const advancedOk = tier(root) >= 3;
  const memory = new Set(spec.memoryKnobs.map(norm));
  const smokeOnly = new Set(spec.smokeOnlyFlags.map(norm));
  const comm = new Set(spec.advancedCommFlags.map(norm));

  for (const key of sec.searchSpace.keys()) {
    if (typeof key !== 'string') continue;
    const p: YamlPath = [...at, 'search_space', key];
    if (memory.has(norm(key))) {
      sink.warn('memory-knob-searched', `${fw}: ${key} is a memory knob; keep it fixed in base_server_flags (searching it mixes memory headroom into the comparison)`, p, {
        onKey: true,
        fixes: moveToBaseFix(sink, sec, at, key),
      });
    }
    if (sec.base.has(key)) {
      valuesOf(sec.searchSpace.get(key)).forEach((v, i) => {
        if (pyEqual(v, sec.base.get(key) ?? null)) {
          const vp = Array.isArray(sec.searchSpace.get(key)) ? [...p, i] : p;
          sink.warn('search-equals-base', `${fw}: search value ${pyRepr(v)} for ${key} equals its base value, so it adds no new setting of ${key} to the search`, vp);
        }
      });
    }
  }
  for (const [where, m] of [['base_server_flags', sec.base], ['search_space', sec.searchSpace]] as const) {
    for (const [key, value] of m) {
      if (typeof key !== 'string') continue;
      const p: YamlPath = [...at, where, key];
      const set = where === 'search_space' ? valuesOf(value).some(truthy) : truthy(value);
      if (!set) continue;
      if (!smoke && smokeOnly.has(norm(key)) && valuesOf(value).some(turnsGraphsOff)) {
        sink.warn('smoke-only-flag', `${fw}: ${key} is a smoke-test setting (eager mode / CUDA graphs off); it slows serving and must not reach a "best" command — set search.tier: 0 for a smoke plan`, p, { onKey: true });
      }
      if (!advancedOk && comm.has(norm(key))) {
        sink.warn('advanced-comm-flag', `${fw}: ${key} depends on a supported all-to-all backend; leave DBO / all2all flags out of a default pass (search.tier < 3)`, p, { onKey: true });
      }
      if (fw === 'vllm' && norm(key) === 'block_size') {
        sink.warn('forced-block-size', 'vllm: block_size forces the KV block size; vLLM picks it per attention backend, and a forced value can disable a faster kernel', p, { onKey: true });
      }
    }
  }
}

/** GPUs every framework must use: hardware.gpu_count, per node when the run spans nodes. */
function gpuCount(root: PyMap, model: PlaybookModel): number | undefined {
  const hw = root.get('hardware');
  const n = isPyMap(hw) ? hw.get('gpu_count') : undefined;
  if (!isPyInt(n)) return undefined;
  if (!isPyMap(hw) || hw.get('multi_node') !== true) return n;
  let nodes = [hw.get('num_nodes'), hw.get('nodes')].find(isPyInt);
  for (const sec of model.frameworks) {
    const v = sec.base.get('nnodes') ?? sec.base.get('num_nodes');
    if (isPyInt(v)) nodes = Math.max(nodes ?? 1, v);
  }
  return n * (nodes ?? 1);
}

function checkParallel(sink: FindingSink, root: PyMap, model: PlaybookModel, sec: FrameworkSection, at: YamlPath): void {
  const gpus = gpuCount(root, model);
  if (gpus === undefined) return;
  const spec = frameworkSpec(sec.framework);
  const dims = (['tp', 'pp', 'dp'] as const).map((d) => ({ d, key: pick(sec.base, spec.parallelKeys[d]) }));
  const size = (d: 'tp' | 'pp' | 'dp', key: string | undefined): number => {
    const v = key ? sec.base.get(key) : undefined;
    return isPyInt(v) ? v : 1;
  };
  // SGLang's DP attention runs data-parallel attention inside the TP group: no extra GPUs.
  const dpInsideTp = sec.framework === 'sglang' && sec.base.get('enable_dp_attention') === true;
  const total = (over?: { d: 'tp' | 'pp' | 'dp'; v: number }) =>
    dims.reduce((acc, { d, key }) => (d === 'dp' && dpInsideTp ? acc : acc * (over?.d === d ? over.v : size(d, key))), 1);
  const describe = dims
    .filter(({ key }) => key)
    .map(({ d, key }) => `${key}=${size(d, key)}`)
    .join(' × ');
  const baseTotal = total();
  if (baseTotal !== gpus) {
    const path = dims.find((x) => x.key)?.key;
    sink.warn('parallel-mismatch', `${sec.framework}: ${describe || 'no parallel size set'} uses ${baseTotal} GPU(s) but the run has ${gpus}; every framework must run on the same GPUs`, path ? [...at, 'base_server_flags', path] : [...at, 'base_server_flags'], { onKey: true });
  }
  for (const { d } of dims) {
    const skey = pick(sec.searchSpace, spec.parallelKeys[d]);
    if (!skey) continue;
    const raw = sec.searchSpace.get(skey);
    valuesOf(raw).forEach((v, i) => {
      if (!isPyInt(v)) return;
      const t = total({ d, v });
      if (t !== gpus) {
        sink.warn('parallel-mismatch', `${sec.framework}: search value ${skey}=${v} uses ${t} GPU(s) but the run has ${gpus}`, Array.isArray(raw) ? [...at, 'search_space', skey, i] : [...at, 'search_space', skey]);
      }
    });
  }
}

function checkFairness(sink: FindingSink, model: PlaybookModel, sec: FrameworkSection, at: YamlPath): void {
  const spec = frameworkSpec(sec.framework);
  const modelKey = pick(sec.base, spec.modelKeys);
  if (modelKey && model.modelName !== undefined) {
    const v = sec.base.get(modelKey);
    if (typeof v === 'string' && v !== model.modelName) {
      sink.warn('fairness-model', `${sec.framework}: ${modelKey} '${v}' differs from model.name '${model.modelName}'; every framework must serve the same weights`, [...at, 'base_server_flags', modelKey]);
    }
  }
  const tokKey = pick(sec.base, spec.tokenizerKeys);
  const wanted = model.tokenizer ?? model.modelName;
  if (tokKey && wanted !== undefined) {
    const v = sec.base.get(tokKey);
    if (typeof v === 'string' && v !== wanted) {
      sink.warn('fairness-tokenizer', `${sec.framework}: ${tokKey} '${v}' differs from the config's tokenizer '${wanted}'; token counts would not be comparable across frameworks`, [...at, 'base_server_flags', tokKey]);
    }
  }
}

function checkValues(sink: FindingSink, sec: FrameworkSection, at: YamlPath): void {
  const fw: FrameworkKey = sec.framework;
  for (const [where, m] of [['base_server_flags', sec.base], ['search_space', sec.searchSpace]] as const) {
    for (const [key, raw] of m) {
      if (typeof key !== 'string') continue;
      const flag = findFlag(sec.known, key);
      if (!flag) continue;
      const list = where === 'search_space' && Array.isArray(raw);
      const choices = flag.kind === 'choice' && flag.choices && flag.choices.length > 0 ? flag.choices : undefined;
      const noDisable = flag.defaultOn && !flag.disableForm;
      // Most flags take neither check: their values are not looked at, and a path is made only for a finding.
      if (!choices && !noDisable) continue;
      valuesOf(where === 'search_space' ? raw : [raw]).forEach((v, i) => {
        const p = (): YamlPath => (list ? [...at, where, key, i] : [...at, where, key]);
        if (v === false && noDisable) {
          sink.error('default-on-no-disable', `${fw}: ${key} is on by default and ${sec.known.label} lists no flag that turns it off; 'false' would be silently ignored`, p());
        }
        if (choices && v !== null && typeof v !== 'boolean') {
          const s = pyStr(v);
          if (!choices.includes(s)) {
            sink.warn('choice-value', `${fw}: ${pyRepr(s)} is not a valid value of ${key} (${sec.known.label}); choose one of ${choices.join(', ')}`, p());
          }
        }
      });
    }
  }
}

function checkBudget(sink: FindingSink, plan: FrameworkCandidates, model: PlaybookModel): void {
  if (plan.untried.length === 0) return;
  const shown = plan.untried.slice(0, 6).map((u) => `${u.key}=${pyStr(u.value)}`);
  const more = plan.untried.length > shown.length ? `, and ${plan.untried.length - shown.length} more` : '';
  const total = plan.totalCombinations >= Number.MAX_SAFE_INTEGER ? 'more than 2^53' : String(plan.totalCombinations);
  const hint = model.strategy === 'coverage_first' ? 'raise search.max_candidates_per_framework' : 'use candidate_generation: coverage_first or raise search.max_candidates_per_framework';
  const units = plan.candidates.filter((c) => c.unit).length;
  const what = units
    ? `search_space and disaggregation.search_space have ${total} combinations, ${plan.candidates.length - units} candidates (baseline included) and ${units} P/D units will run (each list up to the budget)`
    : `search_space has ${total} combinations, ${plan.candidates.length} candidates will run (baseline included)`;
  sink.warn(
    'search-budget',
    `${plan.framework}: ${what}; never tried: ${shown.join(', ')}${more} — ${hint}`,
    ['frameworks', plan.framework, 'search_space'],
    { onKey: true },
  );
}

/**
 * Secrets in every string of the document. `path` is the node's path, one stack pushed and popped on the way down and
 * copied only for a finding: a list of thousands of numbers costs a look at each, not a path each.
 */
function checkSecrets(sink: FindingSink, node: DocNode | undefined, path: YamlPath): void {
  if (!node) return;
  if (node.kind === 'scalar') {
    if (typeof node.value === 'string') checkSecretString(sink, node.value, path);
    return;
  }
  if (node.kind === 'seq') {
    const items = node.items ?? [];
    for (let i = 0; i < items.length; i++) {
      const n = items[i]!;
      if (n.kind === 'scalar' && typeof n.value !== 'string') continue;
      path.push(i);
      checkSecrets(sink, n, path);
      path.pop();
    }
    return;
  }
  for (const e of node.entries ?? []) {
    path.push(typeof e.key === 'string' ? e.key : pyStr(e.key));
    checkSecrets(sink, e.node, path);
    path.pop();
  }
}

function checkSecretString(sink: FindingSink, value: string, path: YamlPath): void {
  const hit = looksSecret(value);
  const key = path[path.length - 1];
  if (hit) {
    sink.warn('secret-value', `this value looks like a ${hit.kind}; pass secrets through the environment (e.g. -e HF_TOKEN), never in a config, command or result row`, [...path]);
  } else if (typeof key === 'string' && path[0] !== 'secrets' && secretNamedValue(key, value)) {
    sink.warn('secret-named-value', `${key} holds a secret written into the plan; name the environment variable that holds it instead (secrets.api_key for a server's API key, secrets.server_env for other server variables)`, [...path]);
  }
}
