// Hover text for a config: flag help with the snapshot it comes from, schema descriptions, scenario lengths.
import type { CheckResult } from '../config/check';
import { findFlag, knownFlagsFor, type SnapshotFlags } from '../config/known-flags';
import { pyStr } from '../py/value';
import { describePath } from '../config/schema-check';
import { nodeAt, type DocNode, type Range, type YamlPath } from '../config/yaml-doc';
import { frameworkSpec } from '../frameworks';
import { isFrameworkKey } from '../frameworks/types';
import { flagDoc } from './completion';
import { docPageForPath, type DocPage } from './docs';
import { predictedEffect, type EditorPrediction } from './predicted';

export interface HoverInfo {
  markdown: string;
  range: Range;
  /** Our documentation page that explains what is hovered, when there is one (the language server links it). */
  doc?: DocPage;
}

interface Hit {
  path: YamlPath;
  onKey: boolean;
  range: Range;
}

const within = (r: Range, o: number) => o >= r[0] && o <= r[1];

/**
 * The deepest key or value under an offset. Between them (indentation, the gap after a colon, a list's dash or brackets,
 * a comment) nothing is hovered: the enclosing key is not under the pointer.
 */
export function nodePathAt(root: DocNode | undefined, offset: number): Hit | undefined {
  let node = root;
  const path: YamlPath = [];
  while (node) {
    let next: DocNode | undefined;
    if (node.kind === 'map') {
      for (const e of node.entries ?? []) {
        const key = typeof e.key === 'string' ? e.key : pyStr(e.key);
        if (within(e.keyRange, offset)) return { path: [...path, key], onKey: true, range: e.keyRange };
        if (within(e.node.range, offset) && e.node.range[1] > e.node.range[0]) {
          path.push(key);
          next = e.node;
          break;
        }
      }
    } else if (node.kind === 'seq') {
      const i = node.items?.findIndex((n) => within(n.range, offset)) ?? -1;
      if (i >= 0) {
        path.push(i);
        next = node.items?.[i];
      }
    } else {
      return { path: [...path], onKey: false, range: node.range };
    }
    node = next;
  }
  return undefined;
}

/** The flag a P/D block's key names: a role's `flags.<flag>`, or the unit search space's `<role>.<flag>`. */
function unitFlagKey(path: YamlPath): string | undefined {
  const [, , block, role, leaf, key] = path;
  if (block !== 'disaggregation') return undefined;
  if ((role === 'prefill' || role === 'decode') && leaf === 'flags' && typeof key === 'string') return key;
  if (role === 'search_space' && typeof leaf === 'string') return /^(prefill|decode)\.(.+)$/.exec(leaf)?.[2];
  return undefined;
}

/** `prediction`: the document's cached prediction (plain data), if any; a search-space value then adds its predicted effect. */
export function hoverAt(result: CheckResult, offset: number, snapshots: SnapshotFlags | undefined, prediction?: EditorPrediction): HoverInfo | undefined {
  const hit = nodePathAt(result.root, offset);
  if (!hit) return undefined;
  const [top, fw, block, key] = hit.path;
  const unitFlag = unitFlagKey(hit.path);
  if (top === 'frameworks' && isFrameworkKey(fw) && unitFlag !== undefined) {
    const known = knownFlagsFor(fw, snapshots);
    const flag = findFlag(known, unitFlag);
    if (flag) return { markdown: flagDoc(fw, flag, known), range: hit.range };
  }

  if (top === 'frameworks' && isFrameworkKey(fw) && (block === 'base_server_flags' || block === 'search_space') && typeof key === 'string') {
    const known = knownFlagsFor(fw, snapshots);
    const flag = findFlag(known, key);
    const md = flag ? flagDoc(fw, flag, known) : `\`${key}\` is not a flag of this ${fw} CLI.\n\n_${known.source === 'builtin' ? `checked against the built-in flag table (${frameworkSpec(fw).displayName} ${frameworkSpec(fw).builtinVersion})` : `checked against ${known.label}`}_`;
    const value = block === 'search_space' && !hit.onKey && prediction ? nodeAt(result.root, hit.path) : undefined;
    const effect = value?.kind === 'scalar' ? predictedEffect(prediction, fw, key, value.value) : undefined;
    return { markdown: effect ? `${md}\n\n${effect}` : md, range: hit.range };
  }

  if (top === 'dataset' && (fw === 'input_len' || fw === 'output_len' || fw === 'scenario_names') && typeof block === 'number') {
    const s = result.model.scenarios[block];
    if (s) {
      const r = result.model.requiredLength;
      const lines = [
        `**Scenario ${block + 1}: \`${s.name}\`**`,
        `input ${s.inputLen} + output ${s.outputLen} = **${s.inputLen + s.outputLen}** tokens`,
      ];
      if (r !== undefined) lines.push(`Every framework's sequence limit must be at least ${r}, the largest scenario.`);
      return { markdown: lines.join('\n\n'), range: hit.range };
    }
  }

  const schemaPath = hit.path.filter((seg): seg is string => typeof seg === 'string');
  const last = hit.path[hit.path.length - 1];
  const desc = describePath(result.kind, typeof last === 'number' ? hit.path : schemaPath);
  if (!desc) return undefined;
  const title = typeof last === 'string' ? `**${last}**\n\n` : '';
  const doc = docPageForPath(hit.path, result.model.slaPath);
  return { markdown: `${title}${desc}`, range: hit.range, ...(doc ? { doc } : {}) };
}
