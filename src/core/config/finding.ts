// A rule's verdict on a config: severity, stable code, message, where it is, and a fix if one exists.
import type { Range, YamlPath } from './yaml-doc';

export type Severity = 'error' | 'warning' | 'info';

/** A text edit on the config file: replace [range) with newText. */
export interface TextEdit {
  range: Range;
  newText: string;
  /** Offsets inside `newText` that the editor selects once the edit is applied (a value to review), where it can. */
  select?: Range;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** The fix changes what the config means, not only how it is spelled: never offered as the preferred (automatic) fix. */
  changesMeaning?: boolean;
}

export interface Finding {
  severity: Severity;
  /** Stable identifier, e.g. `AB101`-style is avoided: kebab-case words people can grep. */
  code: string;
  message: string;
  /** The YAML path the finding concerns (keys and list indexes). */
  path: YamlPath;
  /** Offsets of the offending node (or its nearest existing parent). */
  range: Range;
  /**
   * The editor's message when it differs from `message`: `message` stays the reference validator's exact text (what
   * `autobench validate` prints, byte for byte), which may cite the playbook's own files; the editor says it our way.
   */
  editorMessage?: string;
  /** Edits that resolve the finding, best first (quick fixes in the editor). */
  fixes?: Fix[];
}

/** Zero-based line and character of an offset, as LSP counts them (UTF-16 units). */
export interface Position {
  line: number;
  character: number;
}

export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - (this.starts[lo] ?? 0) };
  }
  offsetAt(pos: Position): number {
    const start = this.starts[pos.line];
    if (start === undefined) return this.text.length;
    return Math.min(start + pos.character, this.text.length);
  }
}

export function formatPath(path: YamlPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}
