// Collects findings while rules walk a parsed config, resolving each YAML path to a source range.
import type { Finding, Fix, Severity } from './finding';
import { nearestNode, nodeAt, type DocNode, type Range, type YamlPath } from './yaml-doc';

export interface ReportOptions {
  /** Point at the key that holds the node instead of its value. */
  onKey?: boolean;
  fixes?: Fix[];
  /** What the editor shows instead of `message`, where the reference validator's text cites a file the user does not have. */
  editorMessage?: string;
}

export class FindingSink {
  readonly findings: Finding[] = [];

  constructor(
    readonly root: DocNode | undefined,
    readonly text = '',
  ) {}

  /** Range of the node at `path`, or its nearest existing parent's. */
  rangeOf(path: YamlPath, onKey = false): Range {
    const exact = nodeAt(this.root, path);
    if (exact) return onKey && exact.keyRange ? exact.keyRange : exact.range;
    const { node } = nearestNode(this.root, path);
    if (!node) return [0, 0];
    // A missing key is reported on its parent's key, which is where the reader looks.
    return node.keyRange ?? node.range;
  }

  report(severity: Severity, code: string, message: string, path: YamlPath, opts: ReportOptions = {}): Finding {
    const f: Finding = { severity, code, message, path: [...path], range: this.rangeOf(path, opts.onKey) };
    if (opts.fixes && opts.fixes.length > 0) f.fixes = opts.fixes;
    if (opts.editorMessage) f.editorMessage = opts.editorMessage;
    this.findings.push(f);
    return f;
  }

  error(code: string, message: string, path: YamlPath, opts?: ReportOptions): Finding {
    return this.report('error', code, message, path, opts);
  }

  warn(code: string, message: string, path: YamlPath, opts?: ReportOptions): Finding {
    return this.report('warning', code, message, path, opts);
  }
}
