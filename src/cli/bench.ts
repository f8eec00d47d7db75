// `autobench bench`: SGLang bench_serving's job with the same flag names: check the flags, build a workload,
// drive a server, print the summary, append the JSON line. Every failure is one line naming the fix.
import { BenchSetupError } from '../client/setup';
import { appendResult, resultJson } from '../client/output';
import { ProgressBar } from '../client/progress-bar';
import { runBenchmark } from '../client/run-benchmark';
import { formatSummary } from '../client/result-table';
import type { BenchOptions, BenchResult } from '../client/types';
import { buildWorkload } from '../core/workload/build';
import { DATASET_DEFAULTS } from '../core/workload/options';
import { SIM_TOKENIZER_ARG, SimTokenizer } from '../runner/sim-tokenizer';
import { loadTokenizer, type TokenizerLike } from '../core/workload/tokenizer';
import type { Workload } from '../core/workload/types';
import { shlexQuote } from '../core/candidates/shell';
import { redactArgv } from '../core/secrets';
import { version } from '../../package.json';
import type { CliIO } from './validate';
import { BENCH_HELP } from './bench-help';
import { parseBenchArgs, strOpt, type BenchArgs } from './bench-args';
import { UsageError, errnoText } from './errors';

export { BENCH_HELP } from './bench-help';
export { authHeaders, parseGoodput } from './bench-args';

export async function runBench(argv: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await bench(argv, io, env);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err.write(`autobench bench: ${e.message}\n`);
      return e.exitCode;
    }
    io.err.write(`autobench bench: ${e instanceof BenchSetupError ? setupHint(e, argv) : (e as Error).message}\n`);
    if (env.AUTOBENCH_DEBUG) io.err.write(`${(e as Error).stack ?? ''}\n`);
    return 1;
  }
}

/** A setup failure with what to do about it. */
function setupHint(e: BenchSetupError, argv: string[]): string {
  const m = e.message;
  switch (e.failure) {
    case 'unreachable':
      return `${m}. Is the server running? Start it first, or point --base-url (or --host/--port) at it.`;
    case 'not-ready': {
      const auth = /HTTP 40[13]/.test(m) ? ' The server wants a key: set OPENAI_API_KEY or pass --header Authorization=...' : '';
      const v1 = argv.some((a) => /\/v1\/?$/.test(a)) ? ' Drop the trailing /v1 from --base-url: the client adds it.' : '';
      return `${m}. Wait until the server has loaded the model, or raise --ready-check-timeout-sec.${auth}${v1}`;
    }
    case 'warmup-failed':
      return `${m}. Check --backend (it picks the endpoint) and --model against the server, and read the server log.`;
    case 'flush-failed':
      return `${m}. Drop --flush-cache, or enable the server's flush route (vLLM: VLLM_SERVER_DEV_MODE=1).`;
    default:
      return m;
  }
}

/** --tokenizer (autobench-sim: the simulated engine's), else --model when it names a folder; prompts of exact lengths need one. */
function benchTokenizer(values: BenchArgs['values']): TokenizerLike {
  const tokenizerPath = strOpt(values, 'tokenizer') ?? strOpt(values, 'model');
  if (tokenizerPath === SIM_TOKENIZER_ARG) return new SimTokenizer();
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

/** The run's JSON line, described with the dataset flags as SGLang names them. */
function resultLine(result: BenchResult, workload: Workload, args: BenchArgs, argv: string[]): Record<string, unknown> {
  const { dataset: d, values, client } = args;
  const tag = strOpt(values, 'tag');
  return resultJson(
    result,
    {
      ...(tag !== undefined ? { tag } : {}),
      datasetName: d.datasetName,
      ...(d.datasetPath ? { datasetPath: d.datasetPath } : {}),
      numPrompts: workload.rows.length,
      seed: client.seed ?? DATASET_DEFAULTS.seed,
      randomInputLen: d.randomInputLen ?? DATASET_DEFAULTS.randomInputLen,
      randomOutputLen: d.randomOutputLen ?? DATASET_DEFAULTS.randomOutputLen,
      randomRangeRatio: d.randomRangeRatio ?? DATASET_DEFAULTS.randomRangeRatio,
      rangeRatioConvention: d.rangeRatioConvention,
      ...(d.sharegptOutputLen !== undefined ? { sharegptOutputLen: d.sharegptOutputLen } : {}),
      warmupRequests: client.warmupRequests ?? 1,
      promptLenCheck: workload.promptLenCheck,
      clientVersion: version,
      // Each word redacted whole before quoting: a secret with spaces or quotes leaves no piece behind.
      command: ['autobench', 'bench', ...redactArgv(argv)].map(shlexQuote).join(' '),
    },
    { details: Boolean(values['output-details']) },
  );
}

/** Appends the line to --output-file (checked before the run); should that still fail, the line goes to stdout so the result is not lost. */
function saveResult(outFile: string, line: Record<string, unknown>, io: CliIO): number {
  try {
    appendResult(outFile, line);
    return 0;
  } catch (e) {
    io.err.write(`autobench bench: --output-file ${outFile}: cannot append: ${errnoText(e)}; the result line follows on stdout\n`);
    io.out.write(`${JSON.stringify(line)}\n`);
    return 1;
  }
}

function describeRun(workload: Workload, args: BenchArgs, io: CliIO): void {
  const { requestRate = Infinity, burstiness = 1, maxConcurrency, baseUrl } = args.client;
  const rateText = workload.timed ? 'trace' : Number.isFinite(requestRate) ? `${requestRate} req/s (${burstiness === 1 ? 'Poisson' : `gamma, burstiness ${burstiness}`})` : 'inf';
  io.err.write(`${workload.rows.length} requests (${workload.name}); request rate ${rateText}; max concurrency ${maxConcurrency ?? 'not set'}; ${baseUrl}${args.apiPath}\n`);
  for (const n of workload.notes) io.err.write(`  ${n}\n`);
}

async function bench(argv: string[], io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseBenchArgs(argv, env);
  if (!args) {
    io.out.write(`${BENCH_HELP}\n`);
    return 0;
  }
  const { dataset: d, values } = args;
  const tokenizer = benchTokenizer(values);
  let workload;
  try {
    workload = buildWorkload(d, tokenizer);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (d.datasetName === 'random' && (d.randomRangeRatio ?? DATASET_DEFAULTS.randomRangeRatio) === 0 && d.rangeRatioConvention === 'sglang') {
    io.err.write('note: --random-range-ratio 0.0 (the SGLang default) draws lengths uniformly from 1 to the given length; pass --random-range-ratio 1 for fixed lengths\n');
  }
  describeRun(workload, args, io);
  const result = await runWithProgress(workload, { ...args.client, tokenizer }, io, Boolean(values['disable-tqdm']));
  io.out.write(`\n${formatSummary(result)}\n`);
  for (const n of result.notes.slice(workload.notes.length)) io.err.write(`note: ${n}\n`);
  if (result.aborted) io.err.write('note: the run was interrupted; the metrics cover the requests that finished\n');
  return args.outputFile ? saveResult(args.outputFile, resultLine(result, workload, args, argv), io) : 0;
}
