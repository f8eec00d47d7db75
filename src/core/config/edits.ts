// Text edits the quick fixes of config findings share: remove a `key: value` entry, add one to a block mapping.
import type { FindingSink } from './context';
import type { TextEdit } from './finding';
import { nodeAt, type YamlPath } from './yaml-doc';

/** Deletes the whole `key: value` entry at `path` (its lines), for "remove" quick fixes. */
export function removeEntryEdit(sink: FindingSink, path: YamlPath, text: string): TextEdit | undefined {
  const keyRange = sink.rangeOf(path, true);
  const valueRange = sink.rangeOf(path, false);
  const lineStart = text.lastIndexOf('\n', keyRange[0] - 1) + 1;
  if (text.slice(lineStart, keyRange[0]).trim() !== '') return undefined;
  let end = Math.max(keyRange[1], valueRange[1]);
  // A block value's range already ends after its last line break.
  if (text[end - 1] !== '\n') {
    const nl = text.indexOf('\n', end);
    end = nl === -1 ? text.length : nl + 1;
  }
  return { range: [lineStart, end], newText: '' };
}

/** Adds `line` as the last entry of the block mapping at `path`, indented like its first key. */
export function appendEntryEdit(sink: FindingSink, path: YamlPath, line: string, text: string): TextEdit | undefined {
  const node = nodeAt(sink.root, path);
  if (node?.kind !== 'map') return undefined;
  // Keys merged in with `<<` sit elsewhere in the text; only the mapping's own keys tell its layout.
  const entries = (node.entries ?? []).filter((e) => e.keyRange[0] >= node.range[0] && e.keyRange[1] <= node.range[1]);
  if (entries.length === 0) return undefined;
  const firstKey = Math.min(...entries.map((e) => e.keyRange[0]));
  const lineStart = text.lastIndexOf('\n', firstKey - 1) + 1;
  const indent = text.slice(lineStart, firstKey);
  if (indent.trim() !== '') return undefined; // a flow mapping: leave it to the user
  const end = Math.max(...entries.map((e) => Math.max(e.keyRange[1], e.node.range[1])));
  // A block value's range already ends after its last line break.
  if (text[end - 1] === '\n') return { range: [end, end], newText: `${indent}${line}\n` };
  const nl = text.indexOf('\n', end);
  const at = nl === -1 ? text.length : nl + 1;
  return { range: [at, at], newText: `${nl === -1 ? '\n' : ''}${indent}${line}\n` };
}
