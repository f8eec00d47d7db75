// The run directory: rows appended and fsynced one by one, raw trial output, server logs, manifest; read back for --resume.
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ResultRow } from '../core/results/rows';
import { makeRedactor } from '../exec/log-sink';

export class RunDir {
  private readonly redact: (s: string) => string;

  /** `secretValues`: exact values to scrub from everything written (token-shaped strings always are). */
  constructor(
    readonly root: string,
    secretValues: readonly string[] = [],
  ) {
    mkdirSync(root, { recursive: true });
    this.redact = makeRedactor(secretValues);
  }

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  /** A path inside the run as rows record it: relative to the run directory, '/'-separated. */
  rel(p: string): string {
    return relative(this.root, p).split('\\').join('/');
  }

  get rowsFile(): string {
    return this.path('rows.jsonl');
  }

  get manifestFile(): string {
    return this.path('manifest.json');
  }

  hasRun(): boolean {
    return existsSync(this.manifestFile) || (existsSync(this.rowsFile) && statSync(this.rowsFile).size > 0);
  }

  /** Appends one row and fsyncs, so a crash right after loses nothing that was written. */
  appendRow(row: ResultRow): void {
    const line = `${this.redact(JSON.stringify(row))}\n`;
    const fd = openSync(this.rowsFile, 'a');
    try {
      writeSync(fd, line);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Rows already written. A torn last line (the process was killed mid-write) is cut off the file and
   * kept in rows.jsonl.torn, so the next append starts on a line of its own.
   */
  readRows(): ResultRow[] {
    if (!existsSync(this.rowsFile)) return [];
    const text = readFileSync(this.rowsFile, 'utf8');
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) {
      writeFileSync(this.path('rows.jsonl.torn'), text.slice(end));
      truncateSync(this.rowsFile, Buffer.byteLength(text.slice(0, end)));
    }
    const out: ResultRow[] = [];
    for (const line of text.slice(0, end).split('\n')) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as ResultRow);
      } catch {
        /* a damaged line: not a finished trial */
      }
    }
    return out;
  }

  /** Rows a resume must not reuse (a changed plan's): appended to rows.stale.jsonl, and rows.jsonl rewritten with the rest. */
  moveAside(stale: readonly ResultRow[], keep: readonly ResultRow[]): void {
    const lines = (rows: readonly ResultRow[]) => rows.map((r) => `${this.redact(JSON.stringify(r))}\n`).join('');
    appendFileSync(this.path('rows.stale.jsonl'), lines(stale));
    this.writeTextRaw('rows.jsonl', lines(keep));
  }

  /** Writes a file atomically (temp + rename), redacting secrets and token-shaped strings. */
  writeText(rel: string, text: string): string {
    return this.writeTextRaw(rel, this.redact(text));
  }

  /** For text built only from already-redacted parts plus code (the HTML panel bundle must stay byte-exact). */
  writeTextRaw(rel: string, text: string): string {
    const p = this.path(rel);
    mkdirSync(dirname(p), { recursive: true });
    const tmp = `${p}.tmp-${process.pid}`;
    writeFileSync(tmp, text);
    renameSync(tmp, p);
    return p;
  }

  writeJson(rel: string, value: unknown): string {
    return this.writeText(rel, `${JSON.stringify(value, null, 2)}\n`);
  }

  scrub(text: string): string {
    return this.redact(text);
  }
}

/**
 * Identifies one measurement so a resumed run can skip it. Search rounds and repeats are keyed by round and rate;
 * `digest` (what defines the trial: command, workload, SLA, client) makes a changed plan's trial a new key.
 */
export function trialKey(t: { framework: string; candidateId: string; scenario: string; mode: 'fixed' | 'search' | 'repeat'; rate: number | 'inf'; concurrency: number | null; round: number }, digest?: string): string {
  const parts = [t.framework, t.candidateId, t.scenario, t.mode];
  if (t.mode !== 'fixed') parts.push(`round=${t.round}`);
  parts.push(`rate=${t.rate}`, `c=${t.concurrency ?? 'none'}`);
  if (digest) parts.push(`d=${digest}`);
  return parts.join('|');
}

/** The key of a row that speaks for a whole candidate on one scenario (launch failure, skip, early stop). */
export function candidateKey(framework: string, candidateId: string, scenario: string, digest?: string): string {
  return [framework, candidateId, scenario, 'candidate', ...(digest ? [`d=${digest}`] : [])].join('|');
}

/** The digest part of a key ('' for keys written before digests). */
export function keyDigest(key: string): string {
  return /\|d=([0-9a-f]+)$/.exec(key)?.[1] ?? '';
}

export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
}
