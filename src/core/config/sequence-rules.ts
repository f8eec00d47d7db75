// The playbook validator's sequence-limit rule, run as its own pass after every framework's other checks (its error order).
import { frameworkSpec } from '../frameworks';
import type { FrameworkKey } from '../frameworks/types';
import { isPyInt, isPyMap, PyFloat, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import type { FindingSink } from './context';
import { appendEntryEdit } from './edits';
import type { YamlPath } from './yaml-doc';

/** One enabled framework's section as written. */
export interface LimitSection {
  framework: FrameworkKey;
  section: PyMap;
}

function pyFalsy(v: PyValue | undefined): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
  if (v instanceof PyFloat) return v.value === 0;
  if (Array.isArray(v)) return v.length === 0;
  return isPyMap(v) && v.size === 0;
}

/** Python's `value or {}`: a mapping, an empty one for a falsy value, undefined for anything else. */
function orEmpty(v: PyValue | undefined): PyMap | undefined {
  if (isPyMap(v)) return v;
  return pyFalsy(v) ? new Map() : undefined;
}

function checkBaseLimit(sink: FindingSink, fw: FrameworkKey, base: PyMap, R: number, text: string): void {
  const spec = frameworkSpec(fw);
  const key = spec.sequenceLimitKey;
  const at: YamlPath = ['frameworks', fw, 'base_server_flags'];
  const has = base.has(key);
  const limit = has ? base.get(key) : spec.sequenceLimitDefault === 'dataset' ? R : 0;
  const path: YamlPath = has ? [...at, key] : at;
  if (!isPyInt(limit ?? null)) {
    sink.error('seq-limit-int', `${fw}: base ${key} is not an integer`, path);
    return;
  }
  if ((limit as number) >= R) return;
  const edit = has ? { range: sink.rangeOf(path), newText: String(R) } : appendEntryEdit(sink, at, `${key}: ${R}`, text);
  sink.error('seq-limit-small', `${fw}: base ${key} (${pyStr(limit as number)}) is smaller than the largest dataset scenario (${R})`, path, {
    onKey: !has,
    ...(edit ? { fixes: [{ title: `Set ${key} to ${R}`, edits: [edit] }] } : {}),
  });
}

function checkSearchedLimits(sink: FindingSink, fw: FrameworkKey, space: PyMap, R: number): void {
  const key = frameworkSpec(fw).sequenceLimitKey;
  if (!space.has(key)) return;
  const raw = space.get(key) ?? null;
  const values = Array.isArray(raw) ? raw : [raw];
  values.forEach((v, i) => {
    // A path only for a candidate that is reported: the list may hold thousands.
    const p = (): YamlPath => (Array.isArray(raw) ? ['frameworks', fw, 'search_space', key, i] : ['frameworks', fw, 'search_space', key]);
    if (!isPyInt(v)) sink.error('seq-limit-search-int', `${fw}: search_space ${key} candidate ${pyRepr(v)} is not an integer`, p());
    else if (v < R) {
      sink.error('seq-limit-search-small', `${fw}: search_space ${key} candidate ${pyStr(v)} is smaller than the largest dataset scenario (${R})`, p(), {
        fixes: [{ title: `Raise this candidate to ${R}`, edits: [{ range: sink.rangeOf(p()), newText: String(R) }] }],
      });
    }
  });
}

/**
 * Every enabled framework's sequence limit against the largest scenario R, as the reference does:
 * R is 0 when the dataset is invalid; a null or empty base/search_space counts as `{}`, any other
 * non-mapping skips the framework (its own error was already reported).
 */
export function checkSequenceLimits(sink: FindingSink, sections: LimitSection[], requiredLength: number | undefined, text: string): void {
  const R = requiredLength ?? 0;
  for (const { framework, section } of sections) {
    const base = orEmpty(section.get('base_server_flags'));
    const space = orEmpty(section.get('search_space'));
    if (!base || !space) continue;
    checkBaseLimit(sink, framework, base, R, text);
    checkSearchedLimits(sink, framework, space, R);
  }
}
