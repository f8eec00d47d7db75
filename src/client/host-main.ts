// The load client as one file for the target's host (dist/client-node.js, Node >= 20, built-ins only): reads a trial spec, runs runBenchmark next to the server and prints its events as JSON lines (wire.ts), the result last; or, with --serve, stays up and runs one trial after another as its stdin asks (a Slurm job's client: one process start per job, not per trial).
//
// Usage: node client-node.js --spec FILE|- [--result-file FILE[.gz]]
//        node client-node.js --serve --result-dir DIR
// Exit 0: a result was handed back (also after SIGTERM: the partial run's), or --serve's input ended; 1: the run could
// not start or finish (an 'error' event says why); 2: the command line or the spec is wrong (one line on stderr).
// In serve mode a bad command or spec is an 'error' event for its trial, and the client keeps serving.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startLoadWorkerIfAsked } from './load-workers';
import { runBenchmark } from './run-benchmark';
import type { BenchEvent } from './types';
import { encodeWire, parseServeCommand, withEnvHeaders, parseTrialSpec, WIRE_VERSION, type TrialSpec, type WireEvent } from './wire';

class UsageProblem extends Error {}

const USAGE = 'usage: client-node.js --spec FILE|- [--result-file FILE[.gz]] | --serve --result-dir DIR';
type Args = { serve: false; spec: string; resultFile: string | undefined } | { serve: true; resultDir: string };

function parseArgs(argv: readonly string[]): Args {
  const values = new Map<string, string>();
  let serve = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--serve') {
      serve = true;
      continue;
    }
    if (a !== '--spec' && a !== '--result-file' && a !== '--result-dir') throw new UsageProblem(`unknown argument ${JSON.stringify(a)}; ${USAGE}`);
    const value = argv[++i];
    if (value === undefined || value === '') throw new UsageProblem(`${a} needs a value`);
    values.set(a, value);
  }
  const spec = values.get('--spec');
  const resultDir = values.get('--result-dir');
  if (serve) {
    if (spec !== undefined || values.has('--result-file')) throw new UsageProblem(`--serve reads its trials on stdin: no --spec or --result-file; ${USAGE}`);
    if (resultDir === undefined) throw new UsageProblem('--serve needs --result-dir DIR');
    return { serve, resultDir };
  }
  if (resultDir !== undefined) throw new UsageProblem(`--result-dir goes with --serve; ${USAGE}`);
  if (spec === undefined) throw new UsageProblem('--spec FILE|- is required');
  return { serve, spec, resultFile: values.get('--result-file') };
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

type Tag = { trial?: string };

function forwarder(tag: Tag): (e: BenchEvent) => void {
  return (e) => {
    if (e.type === 'phase') print({ event: 'phase', ...tag, phase: e.phase, ...(e.detail ? { detail: e.detail } : {}) });
    else if (e.type === 'progress') {
      const { type: _type, ...rest } = e;
      print({ event: 'progress', ...tag, ...rest });
    }
  };
}

/** Written beside its final name first, so a reader never sees half a file. */
function writeResult(path: string, json: string): { file: string; bytes: number; sha256: string } {
  const body = path.endsWith('.gz') ? gzipSync(json, { level: 1 }) : Buffer.from(json);
  writeFileSync(`${path}.part`, body);
  renameSync(`${path}.part`, path);
  return { file: path, bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
}

/** One trial: its events, then its result (or an 'error' event); stopped early by `stop` or the spec's own deadline. True when a result was handed back. */
async function runOne(spec: TrialSpec, stop: AbortSignal, resultFile: string | undefined, tag: Tag): Promise<boolean> {
  const ac = new AbortController();
  const onStop = (): void => ac.abort();
  if (stop.aborted) ac.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const deadline = setTimeout(() => ac.abort(), spec.deadlineMs);
  deadline.unref();
  try {
    const result = await runBenchmark(spec.workload, withEnvHeaders(spec.options), { signal: ac.signal, onEvent: forwarder(tag) });
    const json = encodeWire(result);
    if (resultFile) print({ event: 'result', ...tag, ...writeResult(resultFile, json) });
    else process.stdout.write(`{"event":"result",${tag.trial === undefined ? '' : `"trial":${JSON.stringify(tag.trial)},`}"result":${json}}\n`);
    return true;
  } catch (e) {
    print({ event: 'error', ...tag, message: (e as Error).message || String(e) });
    return false;
  } finally {
    clearTimeout(deadline);
    stop.removeEventListener('abort', onStop);
  }
}

/** Stops the run on TERM, INT, HUP (the runner's cancel, timeout or a dead server) or a closed stdout (a lost connection: nobody reads). */
function onStopSignals(fn: () => void): void {
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, fn);
  process.stdout.on('error', fn);
}

async function once(spec: TrialSpec, resultFile: string | undefined): Promise<number> {
  const ac = new AbortController();
  // The partial result is still handed back.
  onStopSignals(() => ac.abort());
  return (await runOne(spec, ac.signal, resultFile, {})) ? 0 : 1;
}

/**
 * Serve mode: 'ready', then one trial per `run` line, its events and result named by the trial; results go to
 * DIR/<trial>.json.gz, the previous one removed when the next trial starts (the runner has fetched it by then), DIR
 * itself when the client exits. The end of stdin (the runner gone or done), TERM or a closed stdout abort the current
 * trial (its partial result still handed back) and end the client.
 */
function serve(dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    let current: { id: string; ac: AbortController } | undefined;
    let previous: string | undefined;
    let closing = false;
    const finish = (): void => {
      rmSync(dir, { recursive: true, force: true });
      resolve(0);
    };
    const close = (): void => {
      if (closing) return;
      closing = true;
      if (current) current.ac.abort();
      else finish();
    };
    onStopSignals(close);
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (closing || line.trim() === '') return;
      const c = parseServeCommand(line);
      if (!c.ok) return print({ event: 'error', ...(c.trial ? { trial: c.trial } : {}), message: `${c.trial ? 'bad spec' : 'bad command'}: ${c.problem}` });
      const cmd = c.command;
      if ('abort' in cmd) return current?.id === cmd.abort ? current.ac.abort() : undefined;
      if (current) return print({ event: 'error', trial: cmd.run, message: `busy with trial ${current.id}: one trial at a time` });
      if (previous) rmSync(previous, { force: true });
      previous = join(dir, `${cmd.run}.json.gz`);
      const trial = (current = { id: cmd.run, ac: new AbortController() });
      void runOne(cmd.spec, trial.ac.signal, previous, { trial: trial.id }).finally(() => {
        current = undefined;
        if (closing) finish();
      });
    });
    lines.on('close', close);
    print({ event: 'ready', version: WIRE_VERSION, node: process.version });
  });
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  return args.serve ? serve(args.resultDir) : once(readSpec(args.spec), args.resultFile);
}

// This one file is also the load-client worker threads' script on the host (load-workers.ts).
if (!startLoadWorkerIfAsked()) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      const usage = e instanceof UsageProblem;
      const text = usage ? e.message : `internal error: ${(e as Error)?.message ?? String(e)}`;
      process.stderr.write(`autobench client: ${text.replace(/\s+/g, ' ').trim()}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}
