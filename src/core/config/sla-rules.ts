// The playbook validator's SLA rule: which block it reads (benchmark.sla, else the top-level sla) and its key checks.
import { isPyMap, pyRepr, pyStr, type PyMap, type PyValue } from '../py/value';
import { PLAYBOOK_SLA_KEYS, SLA_REPLACEMENTS } from '../sla/limits';
import type { FindingSink } from './context';
import type { PlaybookModel } from './model';
import type { YamlPath } from './yaml-doc';

const pyList = (items: readonly string[]) => `[${items.map((s) => pyRepr(s)).join(', ')}]`;

/** The block the reference checks: `benchmark.sla` unless it is absent or null (then the top-level `sla`). */
function slaBlock(root: PyMap): { sla: PyValue | undefined; path: YamlPath } {
  const bench = root.get('benchmark');
  const inBench = isPyMap(bench) ? bench.get('sla') : undefined;
  if (inBench !== undefined && inBench !== null) return { sla: inBench, path: ['benchmark', 'sla'] };
  return { sla: root.get('sla'), path: ['sla'] };
}

function checkSlaKey(sink: FindingSink, key: PyValue, at: YamlPath): void {
  const k = pyStr(key);
  const p: YamlPath = [...at, typeof key === 'string' ? key : k];
  // hasOwn: a key named like an Object.prototype member (`constructor`) is no deprecated name.
  const replacement = typeof key === 'string' && Object.hasOwn(SLA_REPLACEMENTS, key) ? SLA_REPLACEMENTS[key] : undefined;
  if (replacement) {
    const keyRange = sink.rangeOf(p, true);
    sink.error('sla-deprecated', `sla: ${pyRepr(k)} is deprecated; use ${pyRepr(replacement)} (see references/result-schema.md)`, p, {
      onKey: true,
      fixes: [{ title: `Rename to '${replacement}'`, edits: [{ range: keyRange, newText: replacement }] }],
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
  for (const key of sla.keys()) checkSlaKey(sink, key, path);
}
