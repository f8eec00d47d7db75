// Server output to disk and to a tail buffer, one line at a time so a token split across chunks is still redacted.
import { createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { shlexQuote } from '../core/candidates/shell';
import { redactSecrets } from '../core/secrets';

// A line longer than this is written in pieces; a secret straddling the cut could survive, which a
// server printing megabytes without a newline makes acceptable.
const MAX_PARTIAL = 64 * 1024;
const REDACTED = '<redacted>';

/** Exact secret values first (they may not look token-shaped), then the token-shape patterns. */
export function makeRedactor(secretValues: readonly string[]): (text: string) => string {
  // Very short values would redact ordinary words; longer ones first so a prefix never wins.
  // Each value also as JSON and a shell would write it: a value with a quote or a backslash is stored escaped.
  const forms = secretValues.filter((v) => v.length >= 4).flatMap((v) => [v, JSON.stringify(v).slice(1, -1), shlexQuote(v)]);
  const values = [...new Set(forms)].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of values) out = out.replaceAll(v, REDACTED);
    return redactSecrets(out);
  };
}

export interface LogSinkOptions {
  file?: string;
  tailLines?: number;
  secretValues?: readonly string[];
  onLine?: (line: string) => boolean | void;
}

export class LogSink {
  private readonly out: WriteStream | undefined;
  private readonly tailMax: number;
  private readonly tailBuf: string[] = [];
  private readonly redact: (s: string) => string;
  private readonly partial = new Map<string, { text: string; decoder: StringDecoder }>();
  private closed = false;

  constructor(private readonly opts: LogSinkOptions = {}) {
    this.tailMax = Math.max(1, opts.tailLines ?? 200);
    this.redact = makeRedactor(opts.secretValues ?? []);
    if (opts.file) {
      mkdirSync(dirname(opts.file), { recursive: true });
      this.out = createWriteStream(opts.file, { flags: 'a' });
      // A full disk must not crash the runner; the tail still works.
      this.out.on('error', () => undefined);
    }
  }

  /** Feeds a chunk of one stream ('stdout', 'stderr', ...); partial lines wait per stream. */
  write(stream: string, chunk: Buffer | string): void {
    if (this.closed) return;
    let p = this.partial.get(stream);
    if (!p) {
      p = { text: '', decoder: new StringDecoder('utf8') };
      this.partial.set(stream, p);
    }
    p.text += typeof chunk === 'string' ? chunk : p.decoder.write(chunk);
    let nl = p.text.indexOf('\n');
    while (nl >= 0) {
      this.emitLine(p.text.slice(0, nl).replace(/\r$/, ''));
      p.text = p.text.slice(nl + 1);
      nl = p.text.indexOf('\n');
    }
    if (p.text.length > MAX_PARTIAL) {
      this.emitLine(p.text);
      p.text = '';
    }
  }

  private emitLine(raw: string): void {
    const line = this.redact(raw);
    if (this.opts.onLine?.(line) === true) return;
    this.tailBuf.push(line);
    if (this.tailBuf.length > this.tailMax) this.tailBuf.shift();
    this.out?.write(line + '\n');
  }

  tail(n?: number): string[] {
    return n === undefined ? [...this.tailBuf] : this.tailBuf.slice(Math.max(0, this.tailBuf.length - n));
  }

  /** Flushes partial lines and closes the file; later writes are dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const p of this.partial.values()) {
      const rest = p.text + p.decoder.end();
      if (rest) this.emitLine(rest);
    }
    this.closed = true;
    const out = this.out;
    if (out) await new Promise<void>((resolve) => out.end(resolve));
  }
}
