// One pass over a config's text: parse, schema, the playbook's rules, candidates, our own warnings.
import { generateCandidates, type Combination, type FlagMap } from '../candidates/generate';
import { renderArgv } from '../candidates/render';
import { shlexJoin } from '../candidates/shell';
import { frameworkSpec } from '../frameworks';
import { FindingSink } from './context';
import { runExtraRules } from './extra-rules';
import type { Finding } from './finding';
import { findFlag, type SnapshotFlags } from './known-flags';
import type { ConfigKind, DisaggSection, FrameworkCandidates, FrameworkSection, PlaybookModel } from './model';
import { makeCandidate, makeUnitCandidate, type Candidate } from '../candidates/candidate';
import { renderUnit, unitName, UNIT_ROLES } from '../candidates/unit';
import { runPlaybookRules } from './playbook-rules';
import { isPyMap, type PyValue } from '../py/value';
import { checkSchema } from './schema-check';
import { parseYaml, type DocNode, type ParsedYaml } from './yaml-doc';

// Re-exported for the runner and the editor, which read a check's candidate lists through this module.
export type { FrameworkCandidates } from './model';

export interface CheckOptions {
  /** `auto` tells a runtime plan (no schema_version, top-level sla or version_manifest) from a cookbook. */
  kind?: ConfigKind | 'auto';
  snapshots?: SnapshotFlags;
  /** Lists an enabled, usable section's candidates (default `listCandidates`); the language server passes a cached one. */
  listCandidates?: (section: FrameworkSection, model: PlaybookModel) => FrameworkCandidates;
}

export interface CheckResult {
  kind: ConfigKind;
  root: DocNode | undefined;
  model: PlaybookModel;
  /** All findings, errors first in rule order, then warnings in document order. */
  findings: Finding[];
  /** Each enabled, usable framework's candidate list. */
  candidateLists: FrameworkCandidates[];
}

export function detectKind(root: PyValue | undefined): ConfigKind {
  if (!isPyMap(root)) return 'cookbook';
  if (root.has('schema_version')) return 'cookbook';
  return root.has('version_manifest') || root.has('sla') ? 'plan' : 'cookbook';
}

/** The `false` of a default-on flag renders its disable form (a deliberate difference from the playbook). */
function disableFormFor(section: FrameworkSection): (key: string) => string | undefined {
  return (key) => {
    const flag = findFlag(section.known, key);
    return flag?.defaultOn ? flag.disableForm : undefined;
  };
}

export function listCandidates(section: FrameworkSection, model: PlaybookModel): FrameworkCandidates {
  const spec = frameworkSpec(section.framework);
  const gen = generateCandidates(model.strategy, section.base as FlagMap, section.searchSpace as FlagMap, model.maxCandidates);
  const disableForm = disableFormFor(section);
  const argvOf = (flags: FlagMap): string[] =>
    renderArgv({
      serverCommand: section.serverCommand,
      model: model.modelName,
      positionalModel: spec.positionalModel,
      ...(spec.modelFlag && !spec.modelKeys.some((k) => flags.has(k)) ? { modelFlag: spec.modelFlag } : {}),
      flagStyle: spec.flagStyle,
      flags,
      disableForm,
    });
  const candidates = gen.candidates.map((c: Combination): Candidate => {
    const argv = argvOf(c.flags);
    return makeCandidate(section.framework, c, argv, shlexJoin(argv));
  });
  const units = section.disagg ? listUnits(section, section.disagg, model, argvOf, candidates.length) : undefined;
  return {
    framework: section.framework,
    section,
    candidates: units ? [...candidates, ...units.candidates] : candidates,
    totalCombinations: gen.totalCombinations + (units?.totalCombinations ?? 0),
    untried: [...gen.untried, ...(units?.untried ?? [])],
    truncated: gen.truncated || (units?.truncated ?? false),
  };
}

/** The P/D units of a framework: the roles as written, then the unit search space's combinations, numbered after `first`. */
function listUnits(section: FrameworkSection, d: DisaggSection, model: PlaybookModel, argvOf: (flags: FlagMap) => string[], first: number) {
  const base: FlagMap = new Map();
  for (const role of UNIT_ROLES) {
    const r = role === 'prefill' ? d.prefill : d.decode;
    base.set(`${role}.workers`, r.workers);
    for (const [k, v] of r.flags) base.set(`${role}.${String(k)}`, v);
  }
  const gen = generateCandidates(model.strategy, base, d.searchSpace as FlagMap, model.maxCandidates);
  const candidates = gen.candidates.map((c) => {
    const unit = renderUnit({ framework: section.framework, base: section.base as FlagMap, disagg: d, combo: c, argvOf });
    return makeUnitCandidate(section.framework, first + c.index, c, unit, unitName(unit, c));
  });
  return { candidates, totalCombinations: gen.totalCombinations, untried: gen.untried, truncated: gen.truncated };
}

const severityRank = { error: 0, warning: 1, info: 2 } as const;

export function checkConfigText(text: string, opts: CheckOptions = {}): CheckResult {
  return checkParsedConfig(parseYaml(text), opts);
}

/** The same check on a document parsed once by the caller (a run plan parses its text once and re-checks the tree). */
export function checkParsedConfig(parsed: ParsedYaml, opts: CheckOptions = {}): CheckResult {
  const text = parsed.text;
  const sink = new FindingSink(parsed.root, text);
  for (const p of parsed.problems) {
    sink.findings.push({ severity: 'error', code: p.code, message: p.message, path: [], range: p.range });
  }
  const rootValue = parsed.root?.value;
  const kind = opts.kind === undefined || opts.kind === 'auto' ? (opts.kind === 'auto' ? detectKind(rootValue) : 'cookbook') : opts.kind;
  const emptyModel: PlaybookModel = {
    kind,
    modelName: undefined,
    tokenizer: undefined,
    scenarios: [],
    requiredLength: undefined,
    maxCandidates: 10,
    strategy: 'baseline_first_bounded_product',
    frameworks: [],
    slaPath: undefined,
  };
  if (parsed.root === undefined && parsed.problems.length > 0) {
    return { kind, root: undefined, model: emptyModel, findings: sink.findings, candidateLists: [] };
  }
  const model = runPlaybookRules(sink, rootValue, kind, opts.snapshots, text);
  const list = opts.listCandidates ?? listCandidates;
  const candidateLists = model.frameworks.filter((s) => s.enabled && s.usable).map((s) => list(s, model));
  const errorsEnd = sink.findings.length;
  runExtraRules(sink, rootValue, model, candidateLists);
  for (const f of checkSchema(kind, parsed.root)) sink.findings.push(f);
  const errors = sink.findings.filter((f) => f.severity === 'error');
  const rest = sink.findings
    .slice(0, errorsEnd)
    .filter((f) => f.severity !== 'error')
    .concat(sink.findings.slice(errorsEnd).filter((f) => f.severity !== 'error'))
    .sort((a, b) => severityRank[a.severity] - severityRank[b.severity] || a.range[0] - b.range[0]);
  return { kind, root: parsed.root, model, findings: [...errors, ...rest], candidateLists };
}
