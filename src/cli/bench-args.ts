// `autobench bench`'s command line read and checked in full before any work: every flag's value, the base URL,
// and the output file; a mistake is a UsageError (exit 2) naming the flag and what it takes.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BACKENDS, apiFor, isBackend } from '../client/backends';
import type { GoodputSlo } from '../client/metrics';
import { MAX_WORKERS } from '../client/load-workers';
import { parseBaseUrl } from '../client/setup';
import type { BenchOptions } from '../client/types';
import { isDatasetName } from '../core/workload/build';
import { checkRangeRatio, type RangeRatioConvention } from '../core/workload/lengths';
import { DATASET_DEFAULTS, DATASET_NAMES, type DatasetName, type DatasetOptions } from '../core/workload/options';
import { parseArgsMessage } from './args';
import { UsageError } from './errors';
import { checkOutputFile } from './output-paths';

const VALUE_OPTS = [
  'backend', 'base-url', 'host', 'port', 'model', 'served-model-name', 'tokenizer', 'chat-template', 'extra-request-body',
  'temperature', 'top-p', 'chat-max-tokens-field', 'dataset-name', 'dataset-path', 'num-prompts', 'seed', 'random-input-len',
  'random-output-len', 'random-range-ratio', 'range-ratio-convention', 'sharegpt-output-len', 'sharegpt-context-len',
  'gsp-num-groups', 'gsp-prompts-per-group', 'gsp-system-prompt-len', 'gsp-question-len', 'gsp-output-len', 'gsp-range-ratio',
  'gsp-num-turns', 'gsp-turn-delay-ms', 'gsp-turn-delay-cv', 'mooncake-slowdown-factor', 'mooncake-num-rounds', 'prompt-suffix', 'verify-budget-tokens', 'request-rate',
  'burstiness', 'max-concurrency', 'warmup-requests', 'request-timeout', 'ready-check-timeout-sec', 'output-file', 'tag',
  'workers',
] as const;
const BOOL_OPTS = [
  'disable-stream', 'disable-ignore-eos', 'no-include-usage', 'continuous-usage-stats', 'tokenize-prompt', 'gsp-ordered',
  'gsp-send-routing-key', 'apply-chat-template', 'flush-cache', 'output-details', 'disable-tqdm', 'help',
] as const;

export type OptionValues = Record<string, string | boolean | undefined>;
export type BenchDatasetOptions = Partial<DatasetOptions> & Pick<DatasetOptions, 'datasetName' | 'rangeRatioConvention'>;

/** Everything the command line asks for, checked; only the tokenizer and the prompts are left to load. */
export interface BenchArgs {
  values: OptionValues;
  dataset: BenchDatasetOptions;
  /** The client's options without the tokenizer (loaded after every flag is known to be good). */
  client: Omit<BenchOptions, 'tokenizer'>;
  apiPath: string;
  outputFile: string | undefined;
}

const TRY_HELP = "run 'autobench bench --help' for the flags";
export const strOpt = (values: OptionValues, name: string): string | undefined => values[name] as string | undefined;

/** Flags that take several values (`--goodput ttft:1 tpot:2`, `--header A=1 B=2`), as argparse's nargs='+'. */
function gatherMulti(argv: string[]): { rest: string[]; goodput: string[]; headers: string[] } {
  const rest: string[] = [];
  const goodput: string[] = [];
  const headers: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const target = a === '--goodput' ? goodput : a === '--header' ? headers : undefined;
    if (!target) {
      rest.push(a);
      continue;
    }
    let took = 0;
    while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('--')) {
      target.push(argv[++i] as string);
      took++;
    }
    if (took === 0) throw new UsageError(`${a} needs at least one value`);
  }
  return { rest, goodput, headers };
}

/** `--seed -1`: a negative number after a value flag is its value, not an option (parseArgs would say "Unknown option '-1'"). */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    if (a.startsWith('--') && (VALUE_OPTS as readonly string[]).includes(a.slice(2)) && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

export function parseGoodput(items: string[]): GoodputSlo | undefined {
  if (items.length === 0) return undefined;
  const slo: GoodputSlo = {};
  for (const item of items.flatMap((s) => s.split(','))) {
    const m = /^(ttft|tpot|e2el?):([0-9.]+)$/.exec(item.trim());
    if (!m || !Number.isFinite(Number(m[2])) || Number(m[2]) < 0) throw new UsageError(`--goodput: '${item}' is not NAME:MS with NAME ttft, tpot or e2e and MS >= 0`);
    const v = Number(m[2]);
    if (m[1] === 'ttft') slo.ttftMs = v;
    else if (m[1] === 'tpot') slo.tpotMs = v;
    else slo.e2eMs = v;
  }
  return slo;
}

function parseHeaders(items: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`--header: '${item}' is not K=V`);
    out[item.slice(0, i).trim()] = item.slice(i + 1);
  }
  return out;
}

interface NumRule {
  int?: boolean;
  min?: number;
  max?: number;
  allowInf?: boolean;
}

export function num(values: OptionValues, name: string, opts: NumRule = {}): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const raw = String(value);
  const s = raw.trim().toLowerCase();
  const v = opts.allowInf && (s === 'inf' || s === 'infinity') ? Infinity : Number(s);
  if (Number.isNaN(v) || (!opts.allowInf && !Number.isFinite(v)) || s === '') throw new UsageError(`--${name}: '${raw}' is not a number`);
  if (opts.int && Number.isFinite(v) && !Number.isInteger(v)) throw new UsageError(`--${name}: '${raw}' is not an integer`);
  if (opts.min !== undefined && v < opts.min) throw new UsageError(`--${name} must be >= ${opts.min}, got ${raw}`);
  if (opts.max !== undefined && v > opts.max) throw new UsageError(`--${name} must be <= ${opts.max}, got ${raw}`);
  return v;
}

function jsonObject(name: string, raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw) as unknown;
  } catch (e) {
    throw new UsageError(`--${name}: not JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`--${name}: expected a JSON object`);
  return v as Record<string, unknown>;
}

/** Authorization as SGLang's client sends it: Bearer $OPENAI_API_KEY, else the raw $API_KEY. */
export function authHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.OPENAI_API_KEY) return { authorization: `Bearer ${env.OPENAI_API_KEY}` };
  if (env.API_KEY) return { authorization: env.API_KEY };
  return {};
}

/** argv -> option values; the several-valued flags are gathered first, argparse-style. */
function parseValues(argv: string[]): { values: OptionValues; multi: { goodput: string[]; headers: string[] } } {
  const multi = gatherMulti(joinNegativeValues(argv));
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const o of VALUE_OPTS) options[o] = { type: 'string' };
  for (const o of BOOL_OPTS) options[o] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  try {
    const { values } = parseArgs({ args: multi.rest, options, allowPositionals: false, strict: true }) as { values: OptionValues };
    return { values, multi };
  } catch (e) {
    throw new UsageError(`${parseArgsMessage(e)}; ${TRY_HELP}`);
  }
}

/** The numeric dataset flags: [option key, flag, rule]. */
const DATASET_NUMBERS: Array<[keyof DatasetOptions, string, NumRule]> = [
  ['numPrompts', 'num-prompts', { int: true }],
  ['seed', 'seed', { int: true }],
  ['randomInputLen', 'random-input-len', { int: true, min: 1 }],
  ['randomOutputLen', 'random-output-len', { int: true, min: 1 }],
  ['randomRangeRatio', 'random-range-ratio', { min: 0 }],
  ['sharegptOutputLen', 'sharegpt-output-len', { int: true, min: 1 }],
  ['sharegptContextLen', 'sharegpt-context-len', { int: true, min: 1 }],
  ['gspNumGroups', 'gsp-num-groups', { int: true, min: 1 }],
  ['gspPromptsPerGroup', 'gsp-prompts-per-group', { int: true, min: 1 }],
  ['gspSystemPromptLen', 'gsp-system-prompt-len', { int: true, min: 0 }],
  ['gspQuestionLen', 'gsp-question-len', { int: true, min: 1 }],
  ['gspOutputLen', 'gsp-output-len', { int: true, min: 1 }],
  ['gspRangeRatio', 'gsp-range-ratio', { min: 0 }],
  ['gspNumTurns', 'gsp-num-turns', { int: true, min: 1 }],
  ['gspTurnDelayMs', 'gsp-turn-delay-ms', { min: 0 }],
  ['gspTurnDelayCv', 'gsp-turn-delay-cv', { min: 0 }],
  ['mooncakeSlowdownFactor', 'mooncake-slowdown-factor', { min: 0 }],
  ['mooncakeNumRounds', 'mooncake-num-rounds', { int: true, min: 1 }],
  ['verifyBudgetTokens', 'verify-budget-tokens', { int: true, min: 0 }],
];

/** The dataset flags, as the workload builder takes them (unset flags keep its defaults). */
function datasetOptions(values: OptionValues, datasetName: DatasetName, convention: RangeRatioConvention, chatBackend: boolean): BenchDatasetOptions {
  const d: BenchDatasetOptions = { datasetName, rangeRatioConvention: convention, chatBackend };
  for (const [key, flag, rule] of DATASET_NUMBERS) {
    const v = num(values, flag, rule);
    if (v !== undefined) (d as Record<string, unknown>)[key] = v;
  }
  const everyRow = datasetName === 'custom' || datasetName === 'mooncake' || datasetName === 'trace-csv';
  if (!everyRow && d.numPrompts !== undefined && d.numPrompts < 1) throw new UsageError(`--num-prompts must be >= 1 for --dataset-name ${datasetName}, got ${d.numPrompts}`);
  const ratioProblem = checkRangeRatio(d.randomRangeRatio ?? DATASET_DEFAULTS.randomRangeRatio, convention);
  if ((datasetName === 'random' || datasetName === 'random-ids' || datasetName === 'builtin-text') && ratioProblem) throw new UsageError(ratioProblem);
  const datasetPath = strOpt(values, 'dataset-path');
  if (datasetPath && !existsSync(datasetPath)) throw new UsageError(`--dataset-path ${datasetPath}: no such file; give the path of a local dataset file`);
  if (datasetPath) d.datasetPath = datasetPath;
  if (values['gsp-ordered']) d.gspOrdered = true;
  if (values['gsp-send-routing-key']) d.gspSendRoutingKey = true;
  if (values['apply-chat-template']) d.applyChatTemplate = true;
  const suffix = strOpt(values, 'prompt-suffix');
  if (suffix !== undefined) d.promptSuffix = suffix;
  return d;
}

/** One of `allowed`, or a UsageError that lists them. */
function choice<T extends string>(values: OptionValues, name: string, allowed: readonly T[], fallback: T): T {
  const v = strOpt(values, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}; got '${v}'`);
  return v as T;
}

/** --base-url, else http://HOST:PORT; a URL the client cannot use is a usage error that shows the right shape. */
function baseUrlOf(values: OptionValues, defaultPort: number): string {
  const given = strOpt(values, 'base-url');
  const port = num(values, 'port', { int: true, min: 1, max: 65535 }) ?? defaultPort;
  const url = (given ?? `http://${strOpt(values, 'host') ?? '127.0.0.1'}:${port}`).replace(/\/+$/, '');
  const parsed = parseBaseUrl(url);
  if (parsed.ok) return url;
  if (given === undefined) throw new UsageError(`--host/--port give ${parsed.problem}; pass a host name or address and a port`);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? '' : ` (did you mean http://${given}?)`;
  throw new UsageError(`--base-url ${parsed.problem}: give http://HOST:PORT, e.g. http://127.0.0.1:${defaultPort}${withScheme}`);
}

/** The traffic and request flags as the client takes them. */
function clientOptions(values: OptionValues, multi: { goodput: string[]; headers: string[] }, env: NodeJS.ProcessEnv): Omit<BenchOptions, 'tokenizer' | 'baseUrl' | 'backend' | 'seed'> {
  const requestRate = num(values, 'request-rate', { allowInf: true }) ?? Infinity;
  if (!(requestRate > 0)) throw new UsageError('--request-rate must be > 0 or inf');
  const burstiness = num(values, 'burstiness', { allowInf: true }) ?? 1;
  if (!(burstiness > 0)) throw new UsageError('--burstiness must be > 0');
  const o: Omit<BenchOptions, 'tokenizer' | 'baseUrl' | 'backend' | 'seed'> = {
    headers: { ...authHeaders(env), ...parseHeaders(multi.headers) },
    stream: !values['disable-stream'],
    ignoreEos: !values['disable-ignore-eos'],
    includeUsage: !values['no-include-usage'],
    continuousUsageStats: Boolean(values['continuous-usage-stats']),
    tokenizePrompt: Boolean(values['tokenize-prompt']),
    chatMaxTokensField: choice(values, 'chat-max-tokens-field', ['max_completion_tokens', 'max_tokens'] as const, 'max_completion_tokens'),
    requestRate,
    burstiness,
    warmupRequests: num(values, 'warmup-requests', { int: true, min: 0 }) ?? 1,
    flushCache: Boolean(values['flush-cache']),
    keepTexts: Boolean(values['output-details']),
    failFastUnreachable: true,
  };
  setOptional(o, values, multi.goodput);
  return o;
}

/** The client options that are only set when their flag is given. */
function setOptional(o: Partial<BenchOptions>, values: OptionValues, goodputItems: string[]): void {
  const model = strOpt(values, 'model');
  if (model) o.model = model;
  const served = strOpt(values, 'served-model-name');
  if (served) o.servedModelName = served;
  const maxConcurrency = num(values, 'max-concurrency', { int: true, min: 1 });
  if (maxConcurrency !== undefined) o.maxConcurrency = maxConcurrency;
  const extra = jsonObject('extra-request-body', strOpt(values, 'extra-request-body'));
  if (extra) o.extraRequestBody = extra;
  const goodput = parseGoodput(goodputItems);
  if (goodput) o.goodput = goodput;
  const temperature = num(values, 'temperature', { min: 0 });
  if (temperature !== undefined) o.temperature = temperature;
  const topP = num(values, 'top-p', { min: 0, max: 1 });
  if (topP !== undefined) o.topP = topP;
  const timeout = num(values, 'request-timeout', { min: 0 });
  if (timeout !== undefined && timeout > 0) o.requestTimeoutS = timeout;
  const ready = num(values, 'ready-check-timeout-sec', { min: 0 });
  if (ready !== undefined) o.readyCheckTimeoutS = ready;
  const workers = strOpt(values, 'workers');
  if (workers === undefined || workers === 'auto') return;
  if (!/^\s*\d+\s*$/.test(workers)) throw new UsageError(`--workers takes a number of threads (1-${MAX_WORKERS}) or auto; got '${workers}'`);
  o.workers = num(values, 'workers', { int: true, min: 1, max: MAX_WORKERS });
}

/** Reads and checks the whole command line; undefined when it asked for --help. */
export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv): BenchArgs | undefined {
  const { values, multi } = parseValues(argv);
  if (values.help) return undefined;
  const backendName = strOpt(values, 'backend') ?? 'sglang';
  if (!isBackend(backendName)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}; got '${backendName}'`);
  const api = apiFor(backendName);
  const datasetName = strOpt(values, 'dataset-name') ?? 'random';
  if (!isDatasetName(datasetName)) throw new UsageError(`--dataset-name must be one of ${DATASET_NAMES.join(', ')}; got '${datasetName}'`);
  const convention = choice(values, 'range-ratio-convention', ['sglang', 'vllm'] as const, 'sglang');
  const baseUrl = baseUrlOf(values, api.defaultPort);
  const dataset = datasetOptions(values, datasetName, convention, api.kind === 'chat');
  const client = { backend: backendName, baseUrl, seed: dataset.seed ?? DATASET_DEFAULTS.seed, ...clientOptions(values, multi, env) };
  const outputFile = strOpt(values, 'output-file');
  // Last: the only check that touches the disk, after every flag is known to be good.
  if (outputFile !== undefined) checkOutputFile(outputFile, '--output-file');
  return { values, dataset, client, apiPath: api.path, outputFile };
}
