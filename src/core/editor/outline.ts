// Code lenses, the outline and the "Show commands" listing, all read off one CheckResult.
import { basename } from 'node:path';
import type { CheckResult, FrameworkCandidates } from '../config/check';
import type { Finding } from '../config/finding';
import { candidateProblems, wrapArgv } from './candidate-problems';
import { leaderLensText, type PredictedLeader } from './predicted';
import { sourceLabel } from './snapshot-label';
import { nodeAt, type DocNode, type Range } from '../config/yaml-doc';
import { frameworkSpec } from '../frameworks';
import { pyStr } from '../py/value';
import { shlexQuote } from '../candidates/shell';
import { unitFileLines, type Unit } from '../candidates/unit';

export interface LensInfo {
  range: Range;
  title: string;
  framework: string;
  /** The editor command the lens runs, with [uri, framework] as its arguments. */
  command: string;
}

/** The lenses above each enabled framework, in order: what it would run, then how to run it. */
const RUN_LENSES: ReadonlyArray<[title: string, command: string]> = [
  ['Show commands', 'autobench.showCandidates'],
  ['Run baseline', 'autobench.runBaseline'],
  ['Run candidate…', 'autobench.runCandidate'],
  ['Run all', 'autobench.runAll'],
];

/** `leaders`: per framework, its predicted leader (plain data from the language server's predict worker), appended to the count lens. */
export function lensesFor(result: CheckResult, leaders?: ReadonlyMap<string, PredictedLeader>): LensInfo[] {
  const out: LensInfo[] = [];
  for (const plan of result.candidateLists) {
    const node = nodeAt(result.root, ['frameworks', plan.framework]);
    const range = node?.keyRange ?? node?.range;
    if (!range) continue;
    const n = plan.candidates.length;
    const leader = leaders?.get(plan.framework);
    const invalid = candidateProblems(result, plan).filter((p) => p.length > 0).length;
    const marked = invalid === 0 ? '' : invalid === n ? (n === 1 ? ' (invalid)' : ' (all invalid)') : ` (${invalid} invalid)`;
    const title = `${n} candidate${n === 1 ? '' : 's'}${marked}${leader ? leaderLensText(leader) : ''}`;
    out.push({ range, framework: plan.framework, title, command: 'autobench.pickCandidate' });
    const errors = frameworkErrors(result, plan.framework).length;
    // A run of a framework with errors skips what they affect: the lens says so before the click (and the run asks).
    const mark = errors ? ` (${errors} error${errors === 1 ? '' : 's'})` : '';
    for (const [title, command] of RUN_LENSES) out.push({ range, framework: plan.framework, title: command === 'autobench.showCandidates' ? title : `${title}${mark}`, command });
  }
  return out;
}

/** The errors a run of `framework` meets: those in its own section, and those outside every framework's. */
export function frameworkErrors(result: CheckResult, framework: string): Finding[] {
  return result.findings.filter((f) => f.severity === 'error' && (f.path[0] !== 'frameworks' || f.path[1] === framework || f.path.length < 2));
}

export type SymbolKind = 'module' | 'array' | 'object' | 'field' | 'event';

export interface OutlineSymbol {
  name: string;
  detail?: string;
  kind: SymbolKind;
  range: Range;
  selection: Range;
  children?: OutlineSymbol[];
}

/** A symbol's full range runs from its key to the end of its value, so it contains the selection (the key). */
function span(node: DocNode): Range {
  const k = node.keyRange ?? node.range;
  return [Math.min(k[0], node.range[0]), Math.max(k[1], node.range[1])];
}

export function outlineFor(result: CheckResult): OutlineSymbol[] {
  const out: OutlineSymbol[] = [];
  const root = result.root;
  const model = nodeAt(root, ['model']);
  if (model) {
    out.push({ name: 'model', detail: result.model.modelName ?? '', kind: 'module', range: span(model), selection: model.keyRange ?? model.range });
  }
  const dataset = nodeAt(root, ['dataset']);
  if (dataset && result.model.scenarios.length) {
    const inputs = nodeAt(root, ['dataset', 'input_len']);
    out.push({
      name: 'scenarios',
      detail: `${result.model.scenarios.length}, longest ${result.model.requiredLength ?? '?'} tokens`,
      kind: 'array',
      range: span(dataset),
      selection: dataset.keyRange ?? dataset.range,
      children: result.model.scenarios.map((s, i) => {
        const r = inputs?.items?.[i]?.range ?? dataset.range;
        return { name: s.name, detail: `${s.inputLen} → ${s.outputLen}`, kind: 'event' as const, range: r, selection: r };
      }),
    });
  }
  const fws = nodeAt(root, ['frameworks']);
  if (fws) {
    const children: OutlineSymbol[] = [];
    for (const sec of result.model.frameworks) {
      const node = nodeAt(root, ['frameworks', sec.framework]);
      if (!node) continue;
      const plan = result.candidateLists.find((p) => p.framework === sec.framework);
      const detail = !sec.enabled ? 'excluded' : plan ? `${plan.candidates.length} candidate${plan.candidates.length === 1 ? '' : 's'}` : 'has errors';
      children.push({ name: sec.framework, detail, kind: 'object', range: span(node), selection: node.keyRange ?? node.range });
    }
    out.push({ name: 'frameworks', kind: 'module', range: span(fws), selection: fws.keyRange ?? fws.range, children });
  }
  return out;
}

function describeOverrides(plan: FrameworkCandidates, i: number): string {
  const c = plan.candidates[i];
  if (!c || c.overrides.size === 0) return '';
  return [...c.overrides].map(([k, v]) => `${k}=${pyStr(v)}`).join(' ');
}

export interface CandidateSummary {
  id: string;
  /** The overrides against the base flags (`key=value ...`; empty for the baseline). */
  overrides: string;
  command: string;
  /** The errors that make it invalid (absent when none does). */
  problems?: string[];
}

/** Per enabled framework, its candidates as the "Run candidate…" quick pick lists them. */
export function candidateSummaries(result: CheckResult): Record<string, CandidateSummary[]> {
  const out: Record<string, CandidateSummary[]> = {};
  for (const plan of result.candidateLists) {
    const problems = candidateProblems(result, plan);
    out[plan.framework] = plan.candidates.map((c, i) => ({ id: c.id, overrides: describeOverrides(plan, i), command: c.command, ...(problems[i]?.length ? { problems: problems[i] } : {}) }));
  }
  return out;
}

/** A P/D unit's block of the listing: what it is, then every process in start order, each with its GPU slots. */
function unitListing(id: string, name: string, u: Unit, invalid: string): string[] {
  const slots = u.gpus === 1 ? 'GPU slot 0' : `GPU slots 0-${u.gpus - 1}`;
  const lines = [`# ${id}: P/D unit ${name}, ${u.transferBackend} transfer, ${u.gpus} GPU${u.gpus === 1 ? '' : 's'} (${slots}: the runner maps them to the GPUs it is given); processes in start order, the router last${invalid}`];
  if (u.files.length) {
    lines.push(`#   ${id} files it writes before starting, paths relative to its working folder (${u.files.map((f) => `${f.path}: ${f.role === 'router' ? 'the router' : `each ${f.role} worker`}`).join('; ')})`);
    lines.push(...unitFileLines(u));
  }
  for (const p of u.processes) {
    const what = p.role === 'router' ? 'router (the load client talks to it)' : `${p.role} worker ${p.index} (GPU ${p.gpus.join(',')})`;
    lines.push(`#   ${id} ${what}, port ${p.port}`);
    lines.push(wrapArgv(p.argv, '  ', p.env.map(([k, v]) => `${k}=${shlexQuote(v)}`).join(' ')));
  }
  return lines;
}

/**
 * The read-only listing behind "Show commands": every candidate's exact command, as `validate --json` prints it,
 * wrapped with `\` continuations (one option per line, the same words); a candidate an error makes invalid says so.
 */
export function commandsListing(file: string, result: CheckResult, only?: string): string {
  const lines: string[] = [`# ${basename(file)}: candidate commands (the exact strings of \`autobench validate --json\`)`];
  for (const plan of result.candidateLists) {
    if (only && plan.framework !== only) continue;
    const sec = plan.section;
    lines.push('');
    lines.push(`## ${frameworkSpec(plan.framework).displayName} (${plan.framework}): ${plan.candidates.length} of ${plan.totalCombinations >= Number.MAX_SAFE_INTEGER ? 'many' : plan.totalCombinations} combinations, ${result.model.strategy}, flags from ${sourceLabel(sec.known)}`);
    const problems = candidateProblems(result, plan);
    plan.candidates.forEach((c, i) => {
      const over = describeOverrides(plan, i);
      const bad = problems[i] ?? [];
      const invalid = bad.length ? ` — INVALID: ${bad.join('; ')}` : '';
      if (c.unit) return void lines.push(...unitListing(c.id, c.name, c.unit, invalid));
      lines.push(`# ${c.id}${over ? `: ${over}` : ''}${invalid}`);
      lines.push(wrapArgv(c.argv));
    });
    if (plan.untried.length) lines.push(`# never tried within the budget: ${plan.untried.map((u) => `${u.key}=${pyStr(u.value)}`).join(', ')}`);
  }
  if (result.candidateLists.length === 0) lines.push('', '# no enabled framework without errors: fix the problems first');
  return `${lines.join('\n')}\n`;
}
