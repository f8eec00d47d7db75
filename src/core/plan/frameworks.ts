// Each framework of a plan: run, skipped (unsupported or invalid, with the reason) or user-excluded; its tier's candidates, with skips for unknown flags.
import type { Candidate } from '../candidates/candidate';
import { listCandidates, type CheckResult } from '../config/check';
import type { Finding } from '../config/finding';
import type { FrameworkSection } from '../config/model';
import { findingFramework, runEffect } from '../config/run-effects';
import { pyStr } from '../py/value';
import type { FrameworkKey } from '../frameworks/types';
import { isObj, type Obj } from './read-json';
import type { Endpoint, PlanFramework, Tier } from './types';

/** Tier 3 lists every combination, up to this many candidates per framework. */
export const TIER3_MAX_CANDIDATES = 256;

/** Unknown flag names of one framework (key -> message; '*' when the snapshot lists no flags at all) from a check's errors. */
export function unknownFlags(check: CheckResult, fw: FrameworkKey): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of check.findings) {
    if (f.severity !== 'error') continue;
    const e = runEffect(f);
    if (e.kind === 'unknown-flag' && e.framework === fw && e.flag !== undefined) out.set(e.flag, f.message);
    if (e.kind === 'no-flag-list' && e.framework === fw) out.set('*', f.message);
  }
  return out;
}

/** Marks the candidates that use a flag the framework's CLI does not know. */
export function skipForUnknown(cands: Candidate[], unknown: Map<string, string>, against: string): void {
  if (unknown.size === 0) return;
  const grouped = unknown.get('*');
  for (const c of cands) {
    if (c.skip) continue;
    if (grouped) {
      c.skip = { reason: `not run: ${grouped}`, kind: 'unknown-flag' };
      continue;
    }
    const bad = c.usedKeys.filter((k) => unknown.has(k));
    if (bad.length) c.skip = { reason: `unknown flag${bad.length > 1 ? 's' : ''} ${bad.map((k) => `'${k}'`).join(', ')} (not in ${against}); never passed to the server`, kind: 'unknown-flag' };
  }
}

export interface FrameworkChoice {
  tier: Tier;
  /** --frameworks: the others are user-excluded. */
  only: Set<string> | undefined;
  /** Candidate ids to run (the tier's list filtered). */
  candidates: Set<string> | undefined;
  endpoint: Endpoint;
}

function skipReason(fw: FrameworkKey, errors: Finding[], listed: boolean, endpoint: Endpoint): string | undefined {
  const unsupported = errors.filter((f) => runEffect(f).kind === 'unsupported');
  const invalid = errors.filter((f) => runEffect(f).kind === 'invalid');
  if (unsupported.length) return `unsupported: TensorRT-LLM is run with the PyTorch backend only; an engine (trt) backend is rejected (${unsupported.map((f) => f.message).join('; ')})`;
  if (invalid.length || !listed) return `the config is invalid for this framework: ${(invalid.length ? invalid : errors).map((f) => f.message).join('; ') || 'its section could not be read'}`;
  if (endpoint === '/generate' && fw !== 'sglang') return "benchmark.endpoint /generate is SGLang's native API; other frameworks are compared on an OpenAI endpoint";
  return undefined;
}

function excludedReason(sec: FrameworkSection, root: Obj): string {
  if (!sec.userExcluded) return 'left out by --frameworks';
  if (sec.excludedBy === 'enabled-missing') return "disabled: the config has no 'enabled' key for it (add enabled: true to run it)";
  const section = isObj(root.frameworks) ? root.frameworks[sec.framework] : undefined;
  return isObj(section) && section.enabled === false ? 'enabled: false in the plan' : 'not in benchmark.framework_set';
}

/** One framework's part of the plan. */
export function planFrameworkEntry(check: CheckResult, sec: FrameworkSection, root: Obj, choice: FrameworkChoice): PlanFramework {
  const fw = sec.framework;
  const list = check.candidateLists.find((p) => p.framework === fw);
  const base: PlanFramework = { framework: fw, status: 'run', serverCommand: sec.serverCommand, candidates: [], totalCombinations: 0, untried: [], knownFrom: sec.known.label };
  if (sec.userExcluded || (choice.only && !choice.only.has(fw))) return { ...base, status: 'user_excluded', reason: excludedReason(sec, root) };
  const all = list ? (choice.tier === 3 ? listCandidates(sec, { ...check.model, maxCandidates: TIER3_MAX_CANDIDATES }).candidates : list.candidates) : [];
  const listed = choice.candidates ? all.filter((c) => choice.candidates?.has(c.id)) : choice.tier === 1 ? all.slice(0, 1) : all;
  const entry: PlanFramework = {
    ...base,
    candidates: listed.map((c) => ({ ...c })),
    totalCombinations: list?.totalCombinations ?? 0,
    untried: (list?.untried ?? []).map((u) => `${u.key}=${pyStr(u.value)}`),
  };
  // An unsupported backend skips the framework whatever its severity (a warning in a run plan, an error in a cookbook config).
  const errors = check.findings.filter((f) => findingFramework(f) === fw && (f.severity === 'error' || runEffect(f).kind === 'unsupported'));
  const reason = skipReason(fw, errors, Boolean(list), choice.endpoint);
  if (reason) Object.assign(entry, { status: 'skipped', reason });
  skipForUnknown(entry.candidates, unknownFlags(check, fw), sec.known.source === 'builtin' ? 'the built-in flag table' : sec.known.label);
  // A P/D block with errors builds no units, and says so in the plan's warnings; checkUnits' errors come after the units are built.
  const unitErrors = errors.filter((f) => runEffect(f).kind === 'units').map((f) => f.message);
  if (unitErrors.length) for (const c of entry.candidates) if (c.unit && !c.skip) c.skip = { reason: `the P/D block has errors: ${unitErrors.join('; ')}`, kind: 'unit' };
  return entry;
}
