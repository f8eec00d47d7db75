// `autobench bench`: SGLang bench_serving's job with the same flag names: build a workload, drive a server, print the summary, append the JSON line.
import { parseArgs } from 'node:util';
import { BACKENDS, apiFor, isBackend, type Backend } from '../client/backends';
import type { GoodputSlo } from '../client/metrics';
import { appendResult, resultJson } from '../client/output';
import { ProgressBar } from '../client/progress-bar';
import { runBenchmark } from '../client/run-benchmark';
import { formatSummary } from '../client/result-table';
import type { BenchOptions, BenchResult } from '../client/types';
import { buildWorkload, isDatasetName } from '../core/workload/build';
import type { RangeRatioConvention } from '../core/workload/lengths';
import { DATASET_DEFAULTS, DATASET_NAMES, type DatasetName, type DatasetOptions } from '../core/workload/options';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { redactSecrets } from '../core/secrets';
import { version } from '../../package.json';
import type { CliIO } from './validate';
import { UsageError } from './errors';

export const BENCH_HELP = `usage: autobench bench [--backend B] [--base-url URL | --host H --port P]
                       [--dataset-name D] [--num-prompts N] [options]

Drive an LLM server with a streaming workload and report TTFT, TPOT, ITL, E2E
and throughput, the way SGLang's bench_serving does (same flag names), with
timestamps taken when bytes arrive.

server:
  --backend B              ${BACKENDS.join(', ')}
                           (default sglang; sglang = native /generate,
                           *-oai/vllm/openai = /v1/completions, *-chat = /v1/chat/completions)
  --base-url URL           server base URL; else http://HOST:PORT
  --host H --port P        default 127.0.0.1 and the backend's port (30000 sglang*, 8000 others)
  --model M                model id (default: the first of GET /v1/models)
  --served-model-name M    model name sent in request bodies (default: --model)
  --tokenizer PATH         local tokenizer.json or model folder (default: --model when it is a folder)
  --chat-template FILE     Jinja chat template overriding the tokenizer's
  --header K=V ...         extra request headers (Authorization comes from OPENAI_API_KEY)
  --disable-stream         wait for whole responses (TTFT = E2E)
  --disable-ignore-eos     let generation stop at EOS (ignore_eos is sent by default)
  --extra-request-body J   JSON merged into every body (a row's extra_request_body wins)
  --temperature T          default 0.0;  --top-p P
  --no-include-usage       do not ask for the usage chunk (stream_options.include_usage)
  --continuous-usage-stats ask for usage on every chunk (vLLM), for per-token ITL
  --tokenize-prompt        send random-ids prompts as input_ids (sglang native)
  --chat-max-tokens-field F  max_completion_tokens (default) or max_tokens

dataset:
  --dataset-name D         ${DATASET_NAMES.join(', ')} (default random)
  --dataset-path PATH      sharegpt JSON, custom JSONL, mooncake trace JSONL
                           (random: a ShareGPT file to recycle text from; optional)
  --num-prompts N          default 1000 (custom, mooncake: <= 0 means every row)
  --seed S                 default 42 (dataset and arrivals use separate streams)
  --random-input-len N     default 1024;  --random-output-len N  default 1024
  --random-range-ratio R   default 0.0; SGLang convention: lengths uniform over
                           [max(floor(L*R), 1), L], so 0 gives 1..L and 1 gives L
  --range-ratio-convention C  sglang (default) or vllm: [floor(L(1-R)), ceil(L(1+R))], R < 1
  --sharegpt-output-len N  override output lengths (>= 4);  --sharegpt-context-len N
  --gsp-num-groups N (64) --gsp-prompts-per-group N (16) --gsp-system-prompt-len N (2048)
  --gsp-question-len N (128) --gsp-output-len N (256) --gsp-range-ratio R (1.0)
  --gsp-num-turns N (1) --gsp-ordered --gsp-send-routing-key
  --mooncake-slowdown-factor F (1.0) --mooncake-num-rounds N (1)
  --apply-chat-template    render text prompts through the chat template
  --prompt-suffix S        appended to every prompt
  --verify-budget-tokens N re-encode up to N prompt tokens to check lengths (20000)

traffic:
  --request-rate R         requests/s, or inf (default: all at once)
  --burstiness B           gamma shape of the gaps: 1 Poisson (default), <1 burstier
  --max-concurrency N      requests in flight at most
  --warmup-requests N      default 1 (first row, <= 32 output tokens, not measured)
  --flush-cache            flush the server's prefix cache after warmup
  --request-timeout S      per request, default 21600
  --ready-check-timeout-sec S  wait for GET /v1/models, default 60 (0: one try)
  --goodput SLO ...        ttft:MS tpot:MS e2e:MS (e2el also accepted)

output:
  --output-file PATH       append one JSON line (SGLang's field names, then ours)
  --output-details         add per-request arrays (input_lens, output_lens, ttfts, itls, ...)
  --tag T                  stored in the JSON line
  --disable-tqdm           no progress bar (it shows on a TTY only anyway)
  -h, --help               show this help

exit status: 0 the run finished (failed requests are reported, not fatal),
1 the server never became ready / every warmup failed / the flush failed, 2 bad arguments`;

const VALUE_OPTS = [
  'backend', 'base-url', 'host', 'port', 'model', 'served-model-name', 'tokenizer', 'chat-template', 'extra-request-body',
  'temperature', 'top-p', 'chat-max-tokens-field', 'dataset-name', 'dataset-path', 'num-prompts', 'seed', 'random-input-len',
  'random-output-len', 'random-range-ratio', 'range-ratio-convention', 'sharegpt-output-len', 'sharegpt-context-len',
  'gsp-num-groups', 'gsp-prompts-per-group', 'gsp-system-prompt-len', 'gsp-question-len', 'gsp-output-len', 'gsp-range-ratio',
  'gsp-num-turns', 'mooncake-slowdown-factor', 'mooncake-num-rounds', 'prompt-suffix', 'verify-budget-tokens', 'request-rate',
  'burstiness', 'max-concurrency', 'warmup-requests', 'request-timeout', 'ready-check-timeout-sec', 'output-file', 'tag',
] as const;
const BOOL_OPTS = [
  'disable-stream', 'disable-ignore-eos', 'no-include-usage', 'continuous-usage-stats', 'tokenize-prompt', 'gsp-ordered',
  'gsp-send-routing-key', 'apply-chat-template', 'flush-cache', 'output-details', 'disable-tqdm', 'help',
] as const;

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

function num(values: Record<string, string | boolean | undefined>, name: string, opts: { int?: boolean; min?: number; allowInf?: boolean } = {}): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const raw = String(value);
  const s = raw.trim().toLowerCase();
  const v = opts.allowInf && (s === 'inf' || s === 'infinity') ? Infinity : Number(s);
  if (Number.isNaN(v) || (!opts.allowInf && !Number.isFinite(v)) || s === '') throw new UsageError(`--${name}: '${raw}' is not a number`);
  if (opts.int && Number.isFinite(v) && !Number.isInteger(v)) throw new UsageError(`--${name}: '${raw}' is not an integer`);
  if (opts.min !== undefined && v < opts.min) throw new UsageError(`--${name} must be >= ${opts.min}, got ${raw}`);
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

export async function runBench(argv: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await bench(argv, io, env);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err.write(`autobench bench: ${e.message}\n`);
      return e.exitCode;
    }
    io.err.write(`autobench bench: ${(e as Error).message}\n`);
    if (env.AUTOBENCH_DEBUG) io.err.write(`${(e as Error).stack ?? ''}\n`);
    return 1;
  }
}

type OptionValues = Record<string, string | boolean | undefined>;
type BenchDatasetOptions = Partial<DatasetOptions> & Pick<DatasetOptions, 'datasetName' | 'rangeRatioConvention'>;

const strOpt = (values: OptionValues, name: string): string | undefined => values[name] as string | undefined;

/** argv -> option values; the several-valued flags are gathered first, argparse-style. */
function parseBenchArgs(argv: string[]): { values: OptionValues; multi: { goodput: string[]; headers: string[] } } {
  const multi = gatherMulti(argv);
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const o of VALUE_OPTS) options[o] = { type: 'string' };
  for (const o of BOOL_OPTS) options[o] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  let values: OptionValues;
  try {
    ({ values } = parseArgs({ args: multi.rest, options, allowPositionals: false, strict: true }) as { values: OptionValues });
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${BENCH_HELP}`);
  }
  return { values, multi };
}

/** The dataset flags, as the workload builder takes them (unset flags keep its defaults). */
function datasetOptions(values: OptionValues, datasetName: DatasetName, convention: RangeRatioConvention, chatBackend: boolean): BenchDatasetOptions {
  const d: BenchDatasetOptions = { datasetName, rangeRatioConvention: convention, chatBackend };
  const setNum = (key: keyof DatasetOptions, flag: string, o: { int?: boolean; min?: number } = {}): void => {
    const v = num(values, flag, o);
    if (v !== undefined) (d as Record<string, unknown>)[key] = v;
  };
  const datasetPath = strOpt(values, 'dataset-path');
  if (datasetPath) d.datasetPath = datasetPath;
  setNum('numPrompts', 'num-prompts', { int: true });
  setNum('seed', 'seed', { int: true });
  setNum('randomInputLen', 'random-input-len', { int: true, min: 1 });
  setNum('randomOutputLen', 'random-output-len', { int: true, min: 1 });
  setNum('randomRangeRatio', 'random-range-ratio', { min: 0 });
  setNum('sharegptOutputLen', 'sharegpt-output-len', { int: true, min: 1 });
  setNum('sharegptContextLen', 'sharegpt-context-len', { int: true, min: 1 });
  setNum('gspNumGroups', 'gsp-num-groups', { int: true, min: 1 });
  setNum('gspPromptsPerGroup', 'gsp-prompts-per-group', { int: true, min: 1 });
  setNum('gspSystemPromptLen', 'gsp-system-prompt-len', { int: true, min: 0 });
  setNum('gspQuestionLen', 'gsp-question-len', { int: true, min: 1 });
  setNum('gspOutputLen', 'gsp-output-len', { int: true, min: 1 });
  setNum('gspRangeRatio', 'gsp-range-ratio', { min: 0 });
  setNum('gspNumTurns', 'gsp-num-turns', { int: true, min: 1 });
  setNum('mooncakeSlowdownFactor', 'mooncake-slowdown-factor', { min: 0 });
  setNum('mooncakeNumRounds', 'mooncake-num-rounds', { int: true, min: 1 });
  setNum('verifyBudgetTokens', 'verify-budget-tokens', { int: true, min: 0 });
  if (values['gsp-ordered']) d.gspOrdered = true;
  if (values['gsp-send-routing-key']) d.gspSendRoutingKey = true;
  if (values['apply-chat-template']) d.applyChatTemplate = true;
  const suffix = strOpt(values, 'prompt-suffix');
  if (suffix !== undefined) d.promptSuffix = suffix;
  return d;
}

/** --tokenizer, else --model when it names a folder; prompts of exact lengths need one. */
function benchTokenizer(values: OptionValues): TokenizerLike {
  const tokenizerPath = strOpt(values, 'tokenizer') ?? strOpt(values, 'model');
  let tokenizer: TokenizerLike | undefined;
  if (tokenizerPath) {
    try {
      const chatTemplatePath = strOpt(values, 'chat-template');
      tokenizer = loadTokenizer(tokenizerPath, chatTemplatePath ? { chatTemplatePath } : {});
    } catch (e) {
      if (strOpt(values, 'tokenizer')) throw new UsageError((e as Error).message);
      // --model named a served model id, not a folder: fine when no tokenizer is needed.
    }
  }
  if (!tokenizer) throw new UsageError('a tokenizer is needed to build prompts of exact token lengths: pass --tokenizer PATH (a tokenizer.json or the model folder)');
  return tokenizer;
}

/** The client options that are only set when their flag is given. */
function setOptionalBenchOptions(benchOpts: BenchOptions, values: OptionValues, traffic: Pick<BenchOptions, 'maxConcurrency' | 'extraRequestBody' | 'goodput'>): void {
  const model = strOpt(values, 'model');
  if (model) benchOpts.model = model;
  const served = strOpt(values, 'served-model-name');
  if (served) benchOpts.servedModelName = served;
  if (traffic.maxConcurrency !== undefined) benchOpts.maxConcurrency = traffic.maxConcurrency;
  if (traffic.extraRequestBody) benchOpts.extraRequestBody = traffic.extraRequestBody;
  if (traffic.goodput) benchOpts.goodput = traffic.goodput;
  const temperature = num(values, 'temperature', { min: 0 });
  if (temperature !== undefined) benchOpts.temperature = temperature;
  const topP = num(values, 'top-p', { min: 0 });
  if (topP !== undefined) benchOpts.topP = topP;
  const timeout = num(values, 'request-timeout', { min: 0 });
  if (timeout !== undefined && timeout > 0) benchOpts.requestTimeoutS = timeout;
  const ready = num(values, 'ready-check-timeout-sec', { min: 0 });
  if (ready !== undefined) benchOpts.readyCheckTimeoutS = ready;
}

/** Runs the benchmark with a progress bar (when wanted) and Ctrl-C cancelling it cleanly. */
async function runWithProgress(workload: Workload, benchOpts: BenchOptions, io: CliIO, disableBar: boolean): Promise<BenchResult> {
  const bar = ProgressBar.wanted(io.err, disableBar) ? new ProgressBar(io.err) : undefined;
  const abort = new AbortController();
  const onSigint = (): void => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    return await runBenchmark(workload, benchOpts, { signal: abort.signal, ...(bar ? { onEvent: (e) => bar.onEvent(e) } : {}) });
  } finally {
    process.removeListener('SIGINT', onSigint);
    bar?.done();
  }
}

interface ResultLineInput {
  workload: Workload;
  dataset: BenchDatasetOptions;
  seed: number;
  warmupRequests: number;
  values: OptionValues;
  argv: string[];
}

/** Appends the run's JSON line to --output-file, described with the dataset flags as SGLang names them. */
function writeResultLine(outFile: string, result: BenchResult, input: ResultLineInput): void {
  const { workload, dataset: d, seed, warmupRequests, values, argv } = input;
  const tag = strOpt(values, 'tag');
  const line = resultJson(
    result,
    {
      ...(tag !== undefined ? { tag } : {}),
      datasetName: d.datasetName,
      ...(d.datasetPath ? { datasetPath: d.datasetPath } : {}),
      numPrompts: workload.rows.length,
      seed,
      randomInputLen: d.randomInputLen ?? DATASET_DEFAULTS.randomInputLen,
      randomOutputLen: d.randomOutputLen ?? DATASET_DEFAULTS.randomOutputLen,
      randomRangeRatio: d.randomRangeRatio ?? DATASET_DEFAULTS.randomRangeRatio,
      rangeRatioConvention: d.rangeRatioConvention,
      ...(d.sharegptOutputLen !== undefined ? { sharegptOutputLen: d.sharegptOutputLen } : {}),
      warmupRequests,
      promptLenCheck: workload.promptLenCheck,
      clientVersion: version,
      command: redactSecrets(['autobench', 'bench', ...argv].join(' ')),
    },
    { details: Boolean(values['output-details']) },
  );
  appendResult(outFile, line);
}

async function bench(argv: string[], io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  const { values, multi } = parseBenchArgs(argv);
  if (values.help) {
    io.out.write(`${BENCH_HELP}\n`);
    return 0;
  }
  const str = (k: string): string | undefined => strOpt(values, k);
  const backendName = str('backend') ?? 'sglang';
  if (!isBackend(backendName)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}; got '${backendName}'`);
  const backend: Backend = backendName;
  const api = apiFor(backend);
  const datasetName = str('dataset-name') ?? 'random';
  if (!isDatasetName(datasetName)) throw new UsageError(`--dataset-name must be one of ${DATASET_NAMES.join(', ')}; got '${datasetName}'`);
  const convention = str('range-ratio-convention') ?? 'sglang';
  if (convention !== 'sglang' && convention !== 'vllm') throw new UsageError(`--range-ratio-convention must be sglang or vllm`);
  const chatField = str('chat-max-tokens-field') ?? 'max_completion_tokens';
  if (chatField !== 'max_completion_tokens' && chatField !== 'max_tokens') throw new UsageError('--chat-max-tokens-field must be max_completion_tokens or max_tokens');
  const port = num(values, 'port', { int: true, min: 1 }) ?? api.defaultPort;
  const baseUrl = (str('base-url') ?? `http://${str('host') ?? '127.0.0.1'}:${port}`).replace(/\/+$/, '');
  const d = datasetOptions(values, datasetName, convention, api.kind === 'chat');

  const goodput = parseGoodput(multi.goodput);
  const extra = jsonObject('extra-request-body', str('extra-request-body'));
  const maxConcurrency = num(values, 'max-concurrency', { int: true, min: 1 });
  const requestRate = num(values, 'request-rate', { allowInf: true }) ?? Infinity;
  if (!(requestRate > 0)) throw new UsageError('--request-rate must be > 0 or inf');
  const burstiness = num(values, 'burstiness', { allowInf: true }) ?? 1;
  if (!(burstiness > 0)) throw new UsageError('--burstiness must be > 0');
  const warmupRequests = num(values, 'warmup-requests', { int: true, min: 0 }) ?? 1;
  const seed = d.seed ?? DATASET_DEFAULTS.seed;
  const tokenizer = benchTokenizer(values);

  let workload;
  try {
    workload = buildWorkload(d, tokenizer);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (datasetName === 'random' && (d.randomRangeRatio ?? DATASET_DEFAULTS.randomRangeRatio) === 0 && convention === 'sglang') {
    io.err.write('note: --random-range-ratio 0.0 (the SGLang default) draws lengths uniformly from 1 to the given length; pass --random-range-ratio 1 for fixed lengths\n');
  }
  const benchOpts: BenchOptions = {
    backend,
    baseUrl,
    headers: { ...authHeaders(env), ...parseHeaders(multi.headers) },
    stream: !values['disable-stream'],
    ignoreEos: !values['disable-ignore-eos'],
    includeUsage: !values['no-include-usage'],
    continuousUsageStats: Boolean(values['continuous-usage-stats']),
    tokenizePrompt: Boolean(values['tokenize-prompt']),
    chatMaxTokensField: chatField,
    requestRate,
    burstiness,
    warmupRequests,
    seed,
    flushCache: Boolean(values['flush-cache']),
    tokenizer,
    keepTexts: Boolean(values['output-details']),
  };
  setOptionalBenchOptions(benchOpts, values, { maxConcurrency, extraRequestBody: extra, goodput });

  const rateText = workload.timed ? 'trace' : Number.isFinite(requestRate) ? `${requestRate} req/s (${burstiness === 1 ? 'Poisson' : `gamma, burstiness ${burstiness}`})` : 'inf';
  io.err.write(`${workload.rows.length} requests (${workload.name}); request rate ${rateText}; max concurrency ${maxConcurrency ?? 'not set'}; ${baseUrl}${api.path}\n`);
  for (const n of workload.notes) io.err.write(`  ${n}\n`);

  const result = await runWithProgress(workload, benchOpts, io, Boolean(values['disable-tqdm']));
  io.out.write(`\n${formatSummary(result)}\n`);
  for (const n of result.notes.slice(workload.notes.length)) io.err.write(`note: ${n}\n`);
  if (result.aborted) io.err.write('note: the run was interrupted; the metrics cover the requests that finished\n');
  const outFile = str('output-file');
  if (outFile) writeResultLine(outFile, result, { workload, dataset: d, seed, warmupRequests, values, argv });
  return 0;
}
