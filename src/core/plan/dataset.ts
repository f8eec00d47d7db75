// A plan's dataset for a run: the kind (as named; else builtin-text when candidates use speculative decoding, else
// random), its file (checked readable before any launch) and options, and the scenarios it runs.
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CheckResult } from '../config/check';
import type { Scenario } from '../config/model';
import { optionsTextSpeculative, speculativeKey } from '../frameworks/speculative';
import { FILE_KINDS, FILE_WHAT, OPTION_KEYS, optionGroupOf, optionValue, PER_SCENARIO_KINDS } from '../workload/dataset-keys';
import { DATASET_DEFAULTS, DATASET_NAMES, type DatasetName, type DatasetOptions } from '../workload/options';
import { objAt, str, type Obj } from './read-json';

/** What a random workload says when the run has speculative candidates (rows' raw results, log, manifest). */
export function randomSpeculativeNote(d: Pick<PlanDataset, 'kind' | 'speculative'>): string | undefined {
  if ((d.kind !== 'random' && d.kind !== 'random-ids') || d.speculative.length === 0) return undefined;
  const list = d.speculative.slice(0, 3).join('; ') + (d.speculative.length > 3 ? `; … (${d.speculative.length})` : '');
  return `${d.kind} prompts understate speculative decoding acceptance (${list}): measure those candidates with dataset.kind builtin-text or your own prompts`;
}

export interface PlanDataset {
  kind: DatasetName;
  /** plan: dataset.kind names it; default: random; speculative-default: builtin-text, as candidates use speculative decoding. */
  source: 'plan' | 'default' | 'speculative-default';
  /** Candidates (`framework id: flag`) that use speculative decoding. */
  speculative: string[];
  /** A file kind's file, resolved against the plan's folder; `pathKey` is where the plan names it. */
  path?: string;
  pathKey?: 'dataset.path' | 'dataset.canonical_jsonl';
  /** The kind's dataset.<group> options as the workload builder takes them. */
  options: Partial<DatasetOptions>;
}

/** What the run needs from the plan's check and source to read its dataset. */
export interface DatasetContext {
  /** The plan file's folder: relative dataset and options paths resolve against it. */
  planDir: string;
  /** Candidates using speculative decoding (speculativeCandidates). */
  speculative: string[];
}

function candidateSpeculative(c: { flags: Iterable<readonly [unknown, unknown]>; unit?: { processes: readonly { flags: Iterable<readonly [unknown, unknown]> }[] } }, fw: string, planDir: string): string | undefined {
  const key = speculativeKey(c.flags) ?? c.unit?.processes.map((p) => speculativeKey(p.flags)).find((k) => k !== undefined);
  if (key) return key;
  if (fw !== 'tensorrt_llm') return undefined;
  for (const [k, v] of c.flags) {
    if (k !== 'extra_llm_api_options' && k !== 'config') continue;
    const file = typeof v === 'string' ? (isAbsolute(v) ? v : resolve(planDir, v)) : undefined;
    if (file && existsSync(file) && optionsTextSpeculative(readFileSync(file, 'utf8'))) return `${k} (speculative_config)`;
  }
  return undefined;
}

/** Every listed candidate that turns speculative decoding on, as `framework id: flag` (TensorRT-LLM: in its options file or a role's llm_api_options). */
export function speculativeCandidates(check: CheckResult, planDir: string): string[] {
  const out: string[] = [];
  for (const list of check.candidateLists) {
    const roles = list.section.disagg ? [list.section.disagg.prefill, list.section.disagg.decode] : [];
    const roleKey = roles.some((r) => r.llmApiOptions.has('speculative_config')) ? 'llm_api_options.speculative_config' : undefined;
    for (const c of list.candidates) {
      const key = candidateSpeculative(c, list.framework, planDir) ?? (c.unit ? roleKey : undefined);
      if (key) out.push(`${list.framework} ${c.id}: ${key}`);
    }
  }
  return out;
}

/** The kind the run uses: as named; else builtin-text when a candidate uses speculative decoding (random ids understate acceptance); else random. */
function kindOf(dataset: Obj, ctx: DatasetContext, problems: string[]): Pick<PlanDataset, 'kind' | 'source'> {
  const named = dataset.kind;
  if (named === undefined || named === null) return ctx.speculative.length ? { kind: 'builtin-text', source: 'speculative-default' } : { kind: 'random', source: 'default' };
  if (typeof named === 'string' && (DATASET_NAMES as readonly string[]).includes(named)) return { kind: named as DatasetName, source: 'plan' };
  problems.push(`dataset.kind ${JSON.stringify(named)}: the runner builds ${DATASET_NAMES.join(', ')} workloads; pick one of them`);
  return { kind: 'random', source: 'plan' };
}

/** A file kind's file: named, resolved, readable, not a folder; else a problem naming the key, the path and the fix. */
function fileOf(dataset: Obj, kind: DatasetName, planDir: string, problems: string[]): Pick<PlanDataset, 'path' | 'pathKey'> {
  const written = str(dataset.path) ?? (kind === 'custom' ? str(dataset.canonical_jsonl) : undefined);
  if (!written) return {};
  const pathKey = str(dataset.path) ? 'dataset.path' : 'dataset.canonical_jsonl';
  const path = isAbsolute(written) ? written : resolve(planDir, written);
  const fix = `give the path of ${FILE_WHAT[kind]}, relative to the plan's folder (${planDir}) or absolute`;
  try {
    accessSync(path, constants.R_OK);
    if (statSync(path).isDirectory()) problems.push(`${pathKey}: ${written} (${path}) is a folder: ${fix}`);
  } catch (e) {
    problems.push(`${pathKey}: ${written} (${path}) cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${fix}`);
  }
  return { path, pathKey };
}

function optionsOf(dataset: Obj, kind: DatasetName): Partial<DatasetOptions> {
  const group = optionGroupOf(kind);
  if (!group) return {};
  const out: Record<string, unknown> = {};
  const given = objAt(dataset[group]);
  for (const [key, spec] of Object.entries(OPTION_KEYS[group])) {
    const r = optionValue(spec, given[key]);
    // A bad value is the config check's error (a plan problem already); the builder's default stands meanwhile.
    if (r.ok) out[spec.opt] = r.value;
  }
  return out;
}

/** The plan's dataset for a run; what keeps it from running goes to `problems`. */
export function readPlanDataset(root: Obj, ctx: DatasetContext, problems: string[]): PlanDataset {
  const dataset = objAt(root.dataset);
  const { kind, source } = kindOf(dataset, ctx, problems);
  const file = FILE_KINDS.includes(kind) ? fileOf(dataset, kind, ctx.planDir, problems) : {};
  return { kind, source, speculative: ctx.speculative, ...file, options: optionsOf(dataset, kind) };
}

/**
 * The scenarios a run measures: every input_len/output_len pair for the per-scenario kinds (random, random-ids,
 * builtin-text); one scenario otherwise, named by scenario_names[0] or the kind, whose lengths are the first pair's
 * (generated-shared-prefix: system + question and its output length), for the sequence-limit checks and predictions.
 */
export function runScenarios(scenarios: readonly Scenario[], d: PlanDataset, root: Obj): Scenario[] {
  if (PER_SCENARIO_KINDS.includes(d.kind) || scenarios.length === 0) return [...scenarios];
  const names = objAt(root.dataset).scenario_names;
  const named = Array.isArray(names) && typeof names[0] === 'string' && names[0] !== '' ? names[0] : d.kind;
  const first = scenarios[0] as Scenario;
  if (d.kind !== 'generated-shared-prefix') return [{ name: named, inputLen: first.inputLen, outputLen: first.outputLen }];
  const o = { ...DATASET_DEFAULTS, ...d.options };
  return [{ name: named, inputLen: o.gspSystemPromptLen + o.gspQuestionLen, outputLen: o.gspOutputLen }];
}

/** The plan file's folder (a plan given as text without a file: the working directory). */
export function planDirOf(path: string): string {
  return path ? dirname(resolve(path)) : process.cwd();
}
