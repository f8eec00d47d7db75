// The per-file validation record that `validate --json`, the language server and the extension share.
import type { CheckResult } from './check';
import { formatPath, LineIndex, type Finding } from './finding';

export interface FindingRecord {
  severity: Finding['severity'];
  code: string;
  message: string;
  /** YAML path, dotted (`frameworks.vllm.search_space.block_size`). */
  path: string;
  /** 1-based line and column of the finding's start. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** Titles of the available fixes, best first. */
  fixes?: string[];
}

export interface FileReport {
  file: string;
  errors: FindingRecord[];
  warnings: FindingRecord[];
  /** Every bounded candidate's exact command, per enabled framework, baseline first. */
  candidates: Record<string, string[]>;
}

export function findingRecord(f: Finding, lines: LineIndex): FindingRecord {
  const s = lines.positionAt(f.range[0]);
  const e = lines.positionAt(f.range[1]);
  const rec: FindingRecord = {
    severity: f.severity,
    code: f.code,
    message: f.message,
    path: formatPath(f.path),
    line: s.line + 1,
    column: s.character + 1,
    endLine: e.line + 1,
    endColumn: e.character + 1,
  };
  if (f.fixes) rec.fixes = f.fixes.map((x) => x.title);
  return rec;
}

export function fileReport(file: string, text: string, result: CheckResult): FileReport {
  const lines = new LineIndex(text);
  const candidates: Record<string, string[]> = {};
  for (const plan of result.candidateLists) candidates[plan.framework] = plan.candidates.map((c) => c.command);
  return {
    file,
    errors: result.findings.filter((f) => f.severity === 'error').map((f) => findingRecord(f, lines)),
    warnings: result.findings.filter((f) => f.severity !== 'error').map((f) => findingRecord(f, lines)),
    candidates,
  };
}
