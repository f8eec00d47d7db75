// Candidate lists for as-you-type checks: generated once per distinct section, rendered only when a lens or command reads them.
import { makeCandidate, type Candidate } from '../../src/core/candidates/candidate';
import { generateCandidates, type FlagMap, type GenerationResult } from '../../src/core/candidates/generate';
import { listCandidates } from '../../src/core/config/check';
import type { FrameworkCandidates, FrameworkSection, PlaybookModel } from '../../src/core/config/model';
import type { FlagSpec } from '../../src/core/frameworks/types';
import { PyFloat, type PyMap, type PyValue } from '../../src/core/py/value';

/** Lists kept; each holds one section's candidates (a few per open framework section is plenty). */
const MAX_ENTRIES = 64;

const numberKey = (n: number): string => (Object.is(n, -0) ? '-0' : String(n));

/** Exact identity of a value: 1, 1.0 and '1' differ, and so does key order (flags render in that order). */
export function valueKey(v: PyValue): string {
  if (v === null) return 'N';
  if (v === true) return 'T';
  if (v === false) return 'F';
  if (typeof v === 'number') return `i${numberKey(v)}`;
  if (v instanceof PyFloat) return `f${numberKey(v.value)}`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueKey).join(',')}]`;
  const parts: string[] = [];
  for (const [k, val] of v) parts.push(`${valueKey(k)}:${valueKey(val)}`);
  return `{${parts.join(',')}}`;
}

interface Listed {
  gen: GenerationResult;
  candidates: Candidate[];
}

/** Candidates whose argv and command are rendered, for the whole list at once, the first time one is read. */
function lazyCandidates(gen: GenerationResult, section: FrameworkSection, model: PlaybookModel, counts: { rendered: number }): Candidate[] {
  let rendered: Candidate[] | undefined;
  const render = (i: number): Candidate => {
    if (!rendered) {
      counts.rendered++;
      rendered = listCandidates(section, model).candidates;
    }
    return rendered[i]!;
  };
  return gen.candidates.map((c, i) => {
    const { argv: _argv, command: _command, ...plain } = makeCandidate(section.framework, c, [], '');
    return {
      ...plain,
      get argv() {
        return render(i).argv;
      },
      get command() {
        return render(i).command;
      },
    };
  });
}

export class CandidateCache {
  private readonly lists = new Map<string, Listed>();
  /** Parsed values are shared by unchanged sections from version to version, so their keys are kept with them. */
  private readonly keys = new WeakMap<PyMap, string>();
  private readonly flagIds = new WeakMap<FlagSpec[], number>();
  private nextFlagId = 0;
  readonly counts = { generated: 0, reused: 0, rendered: 0 };

  /** What `listCandidates` gives, the same candidates in the same order; for `CheckOptions.listCandidates`. */
  readonly list = (section: FrameworkSection, model: PlaybookModel): FrameworkCandidates => {
    // A section with P/D units is listed afresh: its units are few (the budget bounds them) and depend on the
    // disaggregation block, which the key does not cover.
    if (section.disagg) return listCandidates(section, model);
    const key = this.keyOf(section, model);
    let hit = this.lists.get(key);
    if (hit) {
      this.counts.reused++;
      this.lists.delete(key);
    } else {
      this.counts.generated++;
      const gen = generateCandidates(model.strategy, section.base as FlagMap, section.searchSpace as FlagMap, model.maxCandidates);
      hit = { gen, candidates: lazyCandidates(gen, section, model, this.counts) };
      if (this.lists.size >= MAX_ENTRIES) this.lists.delete(this.lists.keys().next().value!);
    }
    // Most recently used last: the oldest goes first when full.
    this.lists.set(key, hit);
    const { gen, candidates } = hit;
    return { framework: section.framework, section, candidates, totalCombinations: gen.totalCombinations, untried: gen.untried, truncated: gen.truncated };
  };

  /**
   * Everything `listCandidates` reads: generation (strategy, budget, base, search space) and rendering (framework,
   * command, model name, flag table). Keep in step with it; the incremental-analysis tests compare with it.
   */
  private keyOf(section: FrameworkSection, model: PlaybookModel): string {
    let flags = this.flagIds.get(section.known.flags);
    if (flags === undefined) this.flagIds.set(section.known.flags, (flags = this.nextFlagId++));
    const parts = [section.framework, flags, section.serverCommand, model.modelName ?? '\u0001', model.strategy, numberKey(model.maxCandidates)];
    return `${parts.join('\0')}\0${this.mapKey(section.base)}\0${this.mapKey(section.searchSpace)}`;
  }

  private mapKey(m: PyMap): string {
    let k = this.keys.get(m);
    if (k === undefined) this.keys.set(m, (k = valueKey(m)));
    return k;
  }
}
