// The load client's wire format between a runner and the client running on the target's host (dist/client-node.js): the trial spec it reads, the JSON-line events it prints, and the BenchResult it hands back, NaN, Infinity and dates kept.
//
// JSON has no NaN or Infinity (a failed request's TTFT is NaN, an unlimited rate Infinity), so non-finite
// numbers travel as {"$autobench-number": "NaN" | "Infinity" | "-Infinity"} and the result's start time as an
// ISO string. The spec carries no secret: a header or key would sit in a file on the host.
import type { WorkloadRow } from '../core/workload/types';
import { isBackend } from './backends';
import { parseBaseUrl } from './setup';
import type { BenchOptions, BenchPhase, BenchProgress, BenchResult } from './types';

/** Bumped when a runner and a client bundle could disagree on the spec or the result. */
export const WIRE_VERSION = 1;

/** The client's secret request headers as one JSON object in its environment: a trial spec (a file or a stdin line) never holds them. */
export const CLIENT_HEADERS_ENV = 'AUTOBENCH_CLIENT_HEADERS';

/** The spec's options with the headers from CLIENT_HEADERS_ENV added (a malformed value is an error, never echoed). */
export function withEnvHeaders(options: HostBenchOptions, env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const raw = env[CLIENT_HEADERS_ENV];
  if (!raw) return options;
  let h: unknown;
  try {
    h = JSON.parse(raw);
  } catch {
    throw new Error(`${CLIENT_HEADERS_ENV} is not a JSON object of headers`);
  }
  if (!h || typeof h !== 'object' || Array.isArray(h) || !Object.values(h).every((v) => typeof v === 'string')) throw new Error(`${CLIENT_HEADERS_ENV} is not a JSON object of headers`);
  return { ...options, headers: { ...(h as Record<string, string>) } };
}
const NUM_TAG = '$autobench-number';

/** What one trial asks of the client on the host: the rows it sends and the options runTrial would pass. */
export interface TrialSpec {
  version: number;
  workload: { name: string; rows: WorkloadRow[]; notes: string[]; promptLenCheck: 'exact' | 'constructed' | 'target'; timed: boolean };
  options: HostBenchOptions;
  /** The client gives up on its own this long after it starts (a lost connection must not leave it running). */
  deadlineMs: number;
}

/** BenchOptions that survive JSON and hold no secret: no headers, no tokenizer. */
export type HostBenchOptions = Pick<
  BenchOptions,
  'backend' | 'baseUrl' | 'model' | 'requestRate' | 'maxConcurrency' | 'warmupRequests' | 'warmupRow' | 'seed' | 'flushCache' | 'extraRequestBody' | 'readyCheckTimeoutS' | 'progressIntervalMs' | 'keepUncountedTexts' | 'workers'
>;

/** One line the client prints on stdout; in serve mode every trial's line names its trial. */
export type WireEvent = (
  | { event: 'phase'; phase: BenchPhase; detail?: string }
  | ({ event: 'progress' } & Omit<BenchProgress, 'type'>)
  /** The result: inline, or written to the --result-file (gzip when it ends in .gz) with its size and sha256. */
  | { event: 'result'; result?: unknown; file?: string; bytes?: number; sha256?: string }
  /** The run could not start or finish (server not ready, every warmup failed, ...): the in-process client would have thrown this. */
  | { event: 'error'; message: string }
  /** Serve mode: the client is up and reads commands (ServeCommand) on its stdin. */
  | { event: 'ready'; version: number; node: string }
) & { trial?: string };

/**
 * Serve mode (`--serve`: one client process for many trials, a Slurm job's or a host session's): what the runner writes
 * on the client's stdin, one JSON line each. `run` starts a trial (one at a time); `abort` ends it early, its partial
 * result still handed back (what SIGTERM does to a one-trial client). End of input: the current trial is aborted and
 * the client exits.
 */
export type ServeCommand = { run: string; spec: TrialSpec } | { abort: string };

/** A trial's name in serve mode: it names the result file too, so plain characters only. */
export const TRIAL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Prefix of every event line, so the runner tells them from anything else the process prints. */
export const EVENT_PREFIX = '{"event":';

export function encodeWire(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { [NUM_TAG]: String(v) } : v));
}

export function decodeWire(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const tag = (v as Record<string, unknown>)[NUM_TAG];
      if (typeof tag === 'string' && Object.keys(v).length === 1) return Number(tag);
    }
    return v;
  });
}

/** A BenchResult back from its wire form (the start time is a Date again). */
export function resultFromWire(v: unknown): BenchResult {
  const r = v as BenchResult & { startedAt: string };
  if (!r || typeof r !== 'object' || !Array.isArray(r.records) || !r.metrics || typeof r.startedAt !== 'string') throw new Error('the client on the host returned a malformed result');
  return { ...r, startedAt: new Date(r.startedAt) };
}

type Check = (v: unknown, at: string) => string | undefined;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num: Check = (v, at) => (typeof v === 'number' && !Number.isNaN(v) ? undefined : `${at} must be a number`);
const count: Check = (v, at) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? undefined : `${at} must be a whole number >= 0`);
const str: Check = (v, at) => (typeof v === 'string' ? undefined : `${at} must be a string`);
const bool: Check = (v, at) => (typeof v === 'boolean' ? undefined : `${at} must be true or false`);
const obj: Check = (v, at) => (isObj(v) ? undefined : `${at} must be an object`);
const workersCheck: Check = (v, at) => (v === 'auto' || (typeof v === 'number' && Number.isInteger(v) && v >= 1) ? undefined : `${at} must be a whole number >= 1 or "auto"`);
const opt = (c: Check): Check => (v, at) => (v === undefined ? undefined : c(v, at));

function rowProblem(r: unknown, at: string): string | undefined {
  if (!isObj(r)) return `${at} must be an object`;
  const prompt = typeof r.prompt === 'string' || Array.isArray(r.prompt) ? undefined : `${at}.prompt must be a string or a list of messages`;
  return prompt ?? count(r.promptLen, `${at}.promptLen`) ?? count(r.outputLen, `${at}.outputLen`) ?? str(r.scenario, `${at}.scenario`) ?? opt(obj)(r.extraBody, `${at}.extraBody`) ?? opt(num)(r.arrivalMs, `${at}.arrivalMs`);
}

function optionsProblem(o: Record<string, unknown>): string | undefined {
  if (typeof o.backend !== 'string' || !isBackend(o.backend)) return `options.backend must be one of the client's backends, not ${JSON.stringify(o.backend)}`;
  if (typeof o.baseUrl !== 'string') return 'options.baseUrl must be a string';
  const url = parseBaseUrl(o.baseUrl);
  if (!url.ok) return `options.baseUrl: ${url.problem}`;
  const checks: Array<[string, Check]> = [
    ['model', opt(str)],
    ['requestRate', opt(num)],
    ['maxConcurrency', opt(count)],
    ['warmupRequests', opt(count)],
    ['seed', opt(num)],
    ['flushCache', opt(bool)],
    ['extraRequestBody', opt(obj)],
    ['readyCheckTimeoutS', opt(num)],
    ['progressIntervalMs', opt(num)],
    ['keepUncountedTexts', opt(bool)],
    ['workers', opt(workersCheck)],
  ];
  for (const [k, c] of checks) {
    const p = c(o[k], `options.${k}`);
    if (p) return p;
  }
  return o.warmupRow === undefined ? undefined : rowProblem(o.warmupRow, 'options.warmupRow');
}

/** The spec a client was given, or the first thing wrong with it (one line, for the user). */
export function parseTrialSpec(text: string): { ok: true; spec: TrialSpec } | { ok: false; problem: string } {
  let v: unknown;
  try {
    v = decodeWire(text);
  } catch (e) {
    return { ok: false, problem: `not JSON (${(e as Error).message.replace(/\s+/g, ' ').trim()})` };
  }
  return checkTrialSpec(v);
}

/** A serve-mode command line read: the command, or what is wrong with it (with the trial it names, when it names one). */
export function parseServeCommand(text: string): { ok: true; command: ServeCommand } | { ok: false; problem: string; trial?: string } {
  let v: unknown;
  try {
    v = decodeWire(text);
  } catch (e) {
    return { ok: false, problem: `not JSON (${(e as Error).message.replace(/\s+/g, ' ').trim()})` };
  }
  if (!isObj(v)) return { ok: false, problem: 'a command must be a JSON object' };
  const id = v.run ?? v.abort;
  if (typeof id !== 'string' || !TRIAL_ID.test(id)) return { ok: false, problem: `a command needs "run" or "abort" with a trial name matching ${String(TRIAL_ID)}` };
  if (v.abort !== undefined) return { ok: true, command: { abort: id } };
  const spec = checkTrialSpec(v.spec);
  return spec.ok ? { ok: true, command: { run: id, spec: spec.spec } } : { ok: false, problem: spec.problem, trial: id };
}

/** A decoded spec checked: the spec, or the first thing wrong with it. */
export function checkTrialSpec(v: unknown): { ok: true; spec: TrialSpec } | { ok: false; problem: string } {
  if (!isObj(v)) return { ok: false, problem: 'the spec must be a JSON object' };
  if (v.version !== WIRE_VERSION) return { ok: false, problem: `version ${JSON.stringify(v.version)}: this client reads version ${WIRE_VERSION}` };
  const w = v.workload;
  if (!isObj(w) || !Array.isArray(w.rows)) return { ok: false, problem: 'workload.rows must be a list' };
  const problem =
    str(w.name, 'workload.name') ??
    w.rows.map((r, i) => rowProblem(r, `workload.rows[${i}]`)).find(Boolean) ??
    (isObj(v.options) ? optionsProblem(v.options) : 'options must be an object') ??
    num(v.deadlineMs, 'deadlineMs');
  if (problem) return { ok: false, problem };
  const notes = Array.isArray(w.notes) ? w.notes.filter((n): n is string => typeof n === 'string') : [];
  const check = w.promptLenCheck === 'exact' || w.promptLenCheck === 'constructed' ? w.promptLenCheck : 'target';
  const workload = { name: w.name as string, rows: w.rows as WorkloadRow[], notes, promptLenCheck: check, timed: w.timed === true } as const;
  return { ok: true, spec: { version: WIRE_VERSION, workload, options: v.options as HostBenchOptions, deadlineMs: v.deadlineMs as number } };
}
