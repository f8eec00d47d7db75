// The load client as one file for the target's host (dist/client-node.js, Node >= 20, built-ins only): reads a trial spec, runs runBenchmark next to the server and prints its events as JSON lines (wire.ts), the result last.
//
// Usage: node client-node.js --spec FILE|- [--result-file FILE[.gz]]
// Exit 0: a result was handed back (also after SIGTERM: the partial run's); 1: the run could not start or
// finish (an 'error' event says why); 2: the command line or the spec is wrong (one line on stderr).
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { runBenchmark } from './run-benchmark';
import type { BenchEvent } from './types';
import { encodeWire, parseTrialSpec, type TrialSpec, type WireEvent } from './wire';

class UsageProblem extends Error {}

function parseArgs(argv: readonly string[]): { spec: string; resultFile: string | undefined } {
  let spec: string | undefined;
  let resultFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = argv[i + 1];
    if ((a === '--spec' || a === '--result-file') && (value === undefined || value === '')) throw new UsageProblem(`${a} needs a value`);
    if (a === '--spec') spec = value;
    else if (a === '--result-file') resultFile = value;
    else throw new UsageProblem(`unknown argument ${JSON.stringify(a)}; usage: client-node.js --spec FILE|- [--result-file FILE[.gz]]`);
    i++;
  }
  if (spec === undefined) throw new UsageProblem('--spec FILE|- is required');
  return { spec, resultFile };
}

function readSpec(from: string): TrialSpec {
  let raw: Buffer;
  try {
    raw = readFileSync(from === '-' ? 0 : from);
  } catch (e) {
    throw new UsageProblem(`cannot read the spec ${from}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let text: string;
  try {
    text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  } catch {
    throw new UsageProblem('the spec is not valid gzip');
  }
  const parsed = parseTrialSpec(text);
  if (!parsed.ok) throw new UsageProblem(`bad spec: ${parsed.problem}`);
  return parsed.spec;
}

function print(e: WireEvent): void {
  process.stdout.write(`${encodeWire(e)}\n`);
}

function forward(e: BenchEvent): void {
  if (e.type === 'phase') print({ event: 'phase', phase: e.phase, ...(e.detail ? { detail: e.detail } : {}) });
  else if (e.type === 'progress') {
    const { type: _type, ...rest } = e;
    print({ event: 'progress', ...rest });
  }
}

/** Written beside its final name first, so a reader never sees half a file. */
function writeResult(path: string, json: string): WireEvent {
  const body = path.endsWith('.gz') ? gzipSync(json, { level: 1 }) : Buffer.from(json);
  writeFileSync(`${path}.part`, body);
  renameSync(`${path}.part`, path);
  return { event: 'result', file: path, bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const spec = readSpec(args.spec);
  const ac = new AbortController();
  // TERM (the runner's cancel, timeout or a dead server) ends the run early; the partial result is still handed back.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => ac.abort());
  // A lost connection closes stdout: stop sending load nobody will read.
  process.stdout.on('error', () => ac.abort());
  const deadline = setTimeout(() => ac.abort(), spec.deadlineMs);
  deadline.unref();
  try {
    const result = await runBenchmark(spec.workload, spec.options, { signal: ac.signal, onEvent: forward });
    const json = encodeWire(result);
    if (args.resultFile) print(writeResult(args.resultFile, json));
    else process.stdout.write(`{"event":"result","result":${json}}\n`);
    return 0;
  } catch (e) {
    print({ event: 'error', message: (e as Error).message || String(e) });
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    const usage = e instanceof UsageProblem;
    const text = usage ? e.message : `internal error: ${(e as Error)?.message ?? String(e)}`;
    process.stderr.write(`autobench client: ${text.replace(/\s+/g, ' ').trim()}\n`);
    process.exit(usage ? 2 : 1);
  },
);
