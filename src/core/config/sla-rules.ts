// The playbook validator's SLA rule: which block it reads (benchmark.sla, else the top-level sla) and its key checks.
import { isPyMap, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import { PLAYBOOK_SLA_KEYS, SLA_REPLACEMENTS, slaPercentile, slaPercentileChange, type SlaKey } from '../sla/limits';
import type { FindingSink } from './context';
import { removeEntryEdit } from './edits';
import type { Fix, TextEdit } from './finding';
import type { PlaybookModel } from './model';
import { nodeAt, type YamlPath } from './yaml-doc';

const pyList = (items: readonly string[]) => `[${items.map((s) => pyRepr(s)).join(', ')}]`;

/** The block the reference checks: `benchmark.sla` unless it is absent or null (then the top-level `sla`). */
function slaBlock(root: PyMap): { sla: PyValue | undefined; path: YamlPath } {
  const bench = root.get('benchmark');
  const inBench = isPyMap(bench) ? bench.get('sla') : undefined;
  if (inBench !== undefined && inBench !== null) return { sla: inBench, path: ['benchmark', 'sla'] };
  return { sla: root.get('sla'), path: ['sla'] };
}

/** Whether the replacement is the same limit, for the message; when it is not, which percentiles change. */
function replacementNote(key: string, replacement: SlaKey): string {
  const change = slaPercentileChange(key);
  if (change) return `it limits ${change.to}, not ${change.from}: the same value is a looser limit, so review it`;
  const percentile = slaPercentile(replacement);
  return percentile ? `the same ${percentile} limit under its current name` : 'the same limit under its current name';
}

/** The rename of a key whose percentile changes: key to value in one edit, so that the editor can select the value. */
function renameSelectingValue(sink: FindingSink, p: YamlPath, replacement: string): TextEdit {
  const keyRange = sink.rangeOf(p, true);
  const value = nodeAt(sink.root, p);
  const between = value ? sink.text.slice(keyRange[1], value.range[0]) : '';
  if (!value || value.kind !== 'scalar' || value.range[1] <= value.range[0] || between.includes('\n')) return { range: keyRange, newText: replacement };
  const newText = `${replacement}${between}${sink.text.slice(value.range[0], value.range[1])}`;
  return { range: [keyRange[0], value.range[1]], newText, select: [replacement.length + between.length, newText.length] };
}

/**
 * The quick fix for a deprecated key: a rename, or where the replacement is already set, removing the old key. A rename
 * that changes the percentile says so in its title, is never the preferred fix, and selects the value for review.
 */
function deprecatedKeyFix(sink: FindingSink, key: string, replacement: SlaKey, sla: PyMap, p: YamlPath): Fix | undefined {
  const change = slaPercentileChange(key);
  if (sla.has(replacement)) {
    const edit = removeEntryEdit(sink, p, sink.text);
    const title = change ? `Remove '${key}' (drops the ${change.from} limit; '${replacement}' is already set)` : `Remove '${key}' ('${replacement}' is already set)`;
    return edit ? { title, edits: [edit], ...(change ? { changesMeaning: true } : {}) } : undefined;
  }
  if (!change) return { title: `Rename to '${replacement}'`, edits: [{ range: sink.rangeOf(p, true), newText: replacement }] };
  const title = `Replace with ${replacement} (changes the limit from ${change.from} to ${change.to}: review the value)`;
  return { title, edits: [renameSelectingValue(sink, p, replacement)], changesMeaning: true };
}

function checkSlaKey(sink: FindingSink, sla: PyMap, key: PyValue, at: YamlPath): void {
  const k = pyStr(key);
  const p: YamlPath = [...at, typeof key === 'string' ? key : k];
  // hasOwn: a key named like an Object.prototype member (`constructor`) is no deprecated name.
  const replacement = typeof key === 'string' && Object.hasOwn(SLA_REPLACEMENTS, key) ? SLA_REPLACEMENTS[key] : undefined;
  if (typeof key === 'string' && replacement) {
    const fix = deprecatedKeyFix(sink, key, replacement, sla, p);
    // The reference validator's text for `autobench validate` (CONTRACTS); the editor's names the percentile change instead of the playbook's file.
    const head = `sla: ${pyRepr(k)} is deprecated; use ${pyRepr(replacement)}`;
    sink.error('sla-deprecated', `${head} (see references/result-schema.md)`, p, {
      onKey: true,
      editorMessage: `${head} (${replacementNote(key, replacement)})`,
      ...(fix ? { fixes: [fix] } : {}),
    });
  } else if (typeof key !== 'string' || !(PLAYBOOK_SLA_KEYS as readonly string[]).includes(key)) {
    // repr of the key as loaded: `1`, `True` and `None` print unquoted, as in Python.
    sink.error('sla-unknown', `sla: unknown key ${pyRepr(key)}; allowed keys are ${pyList([...PLAYBOOK_SLA_KEYS].sort())}`, p, { onKey: true });
  }
}

export function checkSla(sink: FindingSink, root: PyMap, model: PlaybookModel): void {
  const { sla, path } = slaBlock(root);
  if (sla === undefined || sla === null) return;
  model.slaPath = path;
  if (!isPyMap(sla)) {
    sink.error('sla-mapping', 'sla must be a mapping', path);
    return;
  }
  for (const key of sla.keys()) checkSlaKey(sink, sla, key, path);
}
