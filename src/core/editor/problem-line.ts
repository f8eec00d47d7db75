// Where in a plan or config a run's problem lives: the flag a skip reason names ('totally_bogus_flag') under its
// framework's base flags or search space, else the framework's own key; what the editor's "Go to Line" opens.
import { LineIndex, type Position } from '../config/finding';
import { nodeAt, parseYaml, type DocNode } from '../config/yaml-doc';

/** Sections of a framework where a flag named in a reason may be written. */
const FLAG_SECTIONS = ['base_server_flags', 'search_space', 'server_flags'];

/** Names a reason quotes ('x' or `x`), as written and in the config's snake_case spelling. */
function quotedNames(reason: string): string[] {
  const names = [...reason.matchAll(/['`]([^'`\s]+)['`]/g)].map((m) => m[1] ?? '');
  return names.flatMap((n) => [n, n.replace(/^--/, '').replace(/-/g, '_')]).filter(Boolean);
}

function flagNode(fw: DocNode | undefined, name: string): DocNode | undefined {
  for (const section of FLAG_SECTIONS) {
    const s = nodeAt(fw, [section]);
    const hit = s?.entries?.find((e) => String(e.key) === name);
    if (hit) return { ...hit.node, keyRange: hit.keyRange };
  }
  return undefined;
}

/** The position of the problem's flag, or of its framework's key; undefined when the framework is not in the text. */
export function problemPosition(text: string, framework: string, reason: string): Position | undefined {
  const root = parseYaml(text).root;
  const fw = nodeAt(root, ['frameworks', framework]);
  if (!fw) return undefined;
  const lines = new LineIndex(text);
  for (const name of quotedNames(reason)) {
    const node = flagNode(fw, name);
    if (node) return lines.positionAt(node.keyRange?.[0] ?? node.range[0]);
  }
  return lines.positionAt(fw.keyRange?.[0] ?? fw.range[0]);
}
