// Builds the run plan once from a config's text: one parse, the one snapshot resolver, one config check, then frameworks, workload, SLA, budget and target settings.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { checkParsedConfig, type CheckResult } from '../config/check';
import { runEffect } from '../config/run-effects';
import { loadSnapshotSource, resolveSnapshotSource } from '../config/snapshot-source';
import { parseYaml, type ParsedYaml } from '../config/yaml-doc';
import { FRAMEWORKS } from '../frameworks/types';
import { toJson } from '../py/value';
import { readSlaLimits, withRunDefaults } from '../sla/limits';
import { readBench } from './bench';
import { planDirOf, runScenarios, speculativeCandidates } from './dataset';
import { planFrameworkEntry } from './frameworks';
import { isObj, num, objAt, str, strOrNum, type Obj } from './read-json';
import { literalSecretLines, readPlanSecrets } from './secrets';
import { readPlanSlurm } from './slurm';
import { readSearchStrategy } from './strategy';
import type { RunPlan, Substitution, Tier, VersionRecord } from './types';

export interface PlanSource {
  text: string;
  /** Where the text came from: relative snapshot paths in it resolve against its folder. */
  path: string;
}

export interface ReadPlanOptions {
  /** `--help-dir`: check flags against this folder, whatever the plan says. */
  helpDir?: string;
  /** The editor's `autobench.snapshots.helpDir`: used when the plan names no snapshots. */
  settingHelpDir?: string;
  workspaceRoots?: string[];
  tier?: Tier;
  /** --frameworks: the others are user-excluded. */
  frameworks?: readonly string[];
  /** Candidate ids to run (the tier's list filtered), e.g. the editor's "Run candidate…". */
  candidates?: readonly string[];
  /** The YAML reader (tests inject one to count how often a run parses its plan). */
  parse?: (text: string) => ParsedYaml;
  exists?: (p: string) => boolean;
}

const where = (path: readonly unknown[]): string => (path.length ? path.join('.') : '(root)');

/** version_manifest per key, as written (every field a string; numbers written as names count). */
export function readVersions(root: Obj): Record<string, VersionRecord> {
  const out: Record<string, VersionRecord> = {};
  if (!isObj(root.version_manifest)) return out;
  for (const [fw, rec] of Object.entries(root.version_manifest)) {
    if (!isObj(rec)) continue;
    const v: VersionRecord = {};
    const fields: Array<[keyof VersionRecord, string]> = [['containerImage', 'container_image'], ['packageVersion', 'package_version'], ['gitCommit', 'git_commit'], ['serverHelp', 'server_help'], ['benchmarkHelp', 'benchmark_help']];
    for (const [k, name] of fields) {
      const s = strOrNum(rec[name]);
      if (s) v[k] = s;
    }
    out[fw] = v;
  }
  return out;
}

/** substitutions / parameter_substitutions: flags the runner had to replace. */
export function readSubstitutions(root: Obj): Substitution[] {
  const subs = root.substitutions ?? root.parameter_substitutions;
  if (!Array.isArray(subs)) return [];
  const out: Substitution[] = [];
  for (const s of subs) {
    const from = isObj(s) ? strOrNum(s.from) : undefined;
    if (!isObj(s) || !from) continue;
    const sub: Substitution = { from };
    for (const k of ['framework', 'to', 'reason'] as const) {
      const v = strOrNum(s[k]);
      if (v !== undefined) sub[k] = v;
    }
    out.push(sub);
  }
  return out;
}

function runProblems(check: CheckResult, root: unknown, o: ReadPlanOptions): string[] {
  const problems: string[] = [];
  for (const f of check.findings) if (f.severity === 'error' && runEffect(f).kind === 'stop') problems.push(`${where(f.path)}: ${f.message}`);
  if (!isObj(root) && problems.length === 0) problems.push('expected a YAML mapping');
  for (const f of o.frameworks ?? []) if (!(FRAMEWORKS as readonly string[]).includes(f)) problems.push(`--frameworks: unknown framework '${f}' (${FRAMEWORKS.join(', ')})`);
  return problems;
}

/** The run plan of a config text. Never throws: what keeps it from running is in `problems` (assertRunnable). */
export function readRunPlan(src: PlanSource, o: ReadPlanOptions = {}): RunPlan {
  const parsed = (o.parse ?? parseYaml)(src.text);
  const source = resolveSnapshotSource(src.text, parsed.root?.value, { docPath: src.path, ...(o.helpDir ? { explicitDir: o.helpDir } : {}), ...(o.settingHelpDir ? { settingHelpDir: o.settingHelpDir } : {}), workspaceRoots: o.workspaceRoots ?? [], exists: o.exists ?? existsSync });
  const loaded = loadSnapshotSource(source);
  const check = checkParsedConfig(parsed, { kind: 'auto', ...(loaded.flags ? { snapshots: loaded.flags } : {}) });
  const rootValue: unknown = check.root ? toJson(check.root.value) : undefined;
  const root = objAt(rootValue);
  const problems = runProblems(check, rootValue, o);
  if (source.kind === 'dir' && source.from === 'explicit' && loaded.problem) problems.push(`--help-dir: ${loaded.problem}`);
  const planDir = planDirOf(src.path);
  const bench = readBench(root, problems, { planDir, speculative: speculativeCandidates(check, planDir) });
  if (check.model.scenarios.length === 0 && problems.length === 0) problems.push('dataset: no scenarios');
  if (!check.model.modelName) problems.push('model.name must be set');
  const search = objAt(root.search);
  const tierRaw = o.tier ?? num(search.tier) ?? 2;
  const tier: Tier = tierRaw === 1 || tierRaw === 3 ? tierRaw : 2;
  const searchStrategy = readSearchStrategy(search, problems);
  const slurm = readPlanSlurm(root, problems);
  const secrets = readPlanSecrets(root, problems);
  const choice = { tier, only: o.frameworks ? new Set(o.frameworks) : undefined, candidates: o.candidates ? new Set(o.candidates) : undefined, endpoint: bench.endpoint };
  const hw = objAt(root.hardware);
  const gpuCount = num(hw.gpu_count);
  const gpuModel = strOrNum(hw.gpu_model);
  const benchObj = objAt(root.benchmark);
  const slaBlock = isObj(benchObj.sla) ? benchObj.sla : root.sla;
  return {
    source: { path: src.path, text: src.text, sha256: createHash('sha256').update(src.text).digest('hex'), parsed },
    check,
    snapshots: { flags: loaded.flags ?? {}, source, note: loaded.note, ...(loaded.problem ? { problem: loaded.problem } : {}) },
    model: check.model.modelName ?? '',
    tokenizer: str(benchObj.tokenizer) ?? str(objAt(root.model).tokenizer),
    scenarios: runScenarios(check.model.scenarios, bench.dataset, root),
    frameworks: isObj(rootValue) ? check.model.frameworks.map((sec) => planFrameworkEntry(check, sec, root, choice)) : [],
    bench,
    sla: withRunDefaults(isObj(slaBlock) ? readSlaLimits(slaBlock) : undefined),
    hardware: { ...(gpuCount !== undefined ? { gpuCount } : {}), ...(gpuModel ? { gpuModel } : {}), ...(hw.multi_node === true ? { multiNode: true } : {}) },
    budget: { tier, maxCandidates: check.model.maxCandidates, strategy: check.model.strategy },
    searchStrategy,
    ...(slurm ? { slurm } : {}),
    secrets,
    literalSecrets: literalSecretLines(check, src.text, src.path),
    versions: readVersions(root),
    target: { outputDir: str(search.output_dir) ?? str(benchObj.output_dir) ?? str(root.output_dir) ?? str(root.artifact_dir), resume: search.resume !== false },
    runId: strOrNum(root.run_id),
    substitutions: readSubstitutions(root),
    warnings: check.findings.filter((f) => f.severity !== 'error' || runEffect(f).kind === 'units').map((f) => `${where(f.path)}: ${f.message}${f.severity === 'error' ? ' (no P/D units are run)' : ''}`),
    problems,
  };
}
