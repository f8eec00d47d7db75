// The full report a user reads after a run: winners, raw vs SLA-passing throughput, reasons with next
// steps, caveats, optional columns, and the profiler handoff with the benchmark's own lengths.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseRunFacts } from '../../../src/core/results/run-facts';
import { buildReport } from '../../../src/core/results/report';
import type { ReportModel } from '../../../src/core/results/report-model';
import { mdText, renderReportCsv, renderReportMarkdown } from '../../../src/core/results/report-write';
import { readRows } from '../../../src/core/results/rows';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'dist', 'cli.js');
const MULTI = join(__dirname, 'fixtures', 'multi-framework.jsonl');
const PLAN = resolve(REPO, '../shared/fixtures/plans/example-plan.yaml');

function report(text: string, manifestText?: string): ReportModel {
  const read = readRows(text, 'rows.jsonl');
  assert.ok(read.ok, read.ok ? '' : read.message);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl', ...(manifestText ? { manifestFile: 'plan.yaml', runFacts: parseRunFacts(manifestText, 'plan.yaml') } : {}) });
}

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');
const multi = () => report(readFileSync(MULTI, 'utf8'), readFileSync(PLAN, 'utf8'));
const cand = (m: ReportModel, i: number | null) => (i === null ? undefined : m.candidates[i]);

function okRow(framework: string, id: string, scenario: string, rps: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    framework,
    candidate_id: id,
    status: 'ok',
    workload: { scenario, input_len: 2048, output_len: 256 },
    sla: { max_p50_ttft_ms: 2000, passed: true },
    metrics: { request_throughput: rps, p50_ttft_ms: 500, p50_tpot_ms: 20 },
    ...extra,
  };
}

describe('report: winners and throughput', () => {
  test('best per framework and scenario, ranked across frameworks', () => {
    const m = multi();
    const ranked = (sc: string) => m.best.filter((b) => b.scenario === sc).map((b) => `${b.rank}:${b.framework}:${cand(m, b.row)?.candidate}`);
    assert.deepEqual(ranked('chat'), ['1:vllm:c0', '2:tokenspeed:c0', '3:sglang:c1']);
    assert.deepEqual(ranked('summarization'), ['1:sglang:baseline', '2:vllm:c0', '3:tensorrt_llm:c1']);
    assert.deepEqual(
      m.winners.map((w) => [w.scenario, w.framework, w.serverCommand, w.benchmarkCommand, w.tied]),
      // One measurement each, no intervals: 12 vs 10.5 req/s and 3.2 vs 2.9 are within the 20% decision margin, so
      // each scenario's winner comes with the candidate tied with it; sglang's 9.0 in chat is clear of 12 by more.
      [
        ['chat', 'vllm', 'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --max-num-seqs 128', 'vllm bench serve --backend openai-chat --num-prompts 80', true],
        ['chat', 'tokenspeed', 'tokenspeed serve Qwen/Qwen3-32B --tensor-parallel-size 4', '', true],
        ['summarization', 'sglang', 'python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 4', '', true],
        ['summarization', 'vllm', 'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --max-num-seqs 128', '', true],
      ],
    );
    assert.deepEqual(m.best.map((b) => b.tied), [true, true, false, true, true, false]);
  });

  test('raw throughput beside SLA-passing throughput', () => {
    const m = multi();
    const sg = m.throughput.find((t) => t.scenario === 'chat' && t.framework === 'sglang');
    // c2 is faster (11 req/s) but misses the TTFT limit; c1 (9 req/s) is what counts.
    assert.equal(sg?.rawBest, 11);
    assert.equal(cand(m, sg?.rawRow ?? null)?.candidate, 'c2');
    assert.equal(sg?.slaBest, 9);
    assert.equal(cand(m, sg?.slaRow ?? null)?.candidate, 'c1');
    const trt = m.throughput.find((t) => t.scenario === 'chat' && t.framework === 'tensorrt_llm');
    assert.deepEqual([trt?.rawBest, trt?.slaBest], [null, null]);
  });

  test('the recomputed SLA decides, not a stale sla.passed', () => {
    const rows = jsonl([okRow('vllm', 'liar', 'chat', 50, { metrics: { request_throughput: 50, p50_ttft_ms: 2600 } }), okRow('vllm', 'honest', 'chat', 10)]);
    const m = report(rows);
    assert.equal(cand(m, m.best[0]?.row ?? null)?.candidate, 'honest');
    assert.ok(m.caveats.some((c) => c.kind === 'sla' && /1 row\(s\) carry an sla\.passed/.test(c.text)));
  });

  test('smoke rows are shown but never best', () => {
    const rows = jsonl([
      okRow('sglang', 'eager', 'chat', 99, { server_command: 'python -m sglang.launch_server --cuda-graph-backend-decode disabled' }),
      okRow('sglang', 'flagged', 'chat', 98, { smoke: true }),
      okRow('sglang', 'real', 'chat', 5),
    ]);
    const m = report(rows);
    assert.deepEqual(m.best.map((b) => cand(m, b.row)?.candidate), ['real']);
    assert.deepEqual(m.notSelected.map((n) => [n.candidate, n.category, n.next]), [
      ['eager', 'smoke', 'nothing'],
      ['flagged', 'smoke', 'nothing'],
    ]);
    assert.ok(m.caveats.some((c) => c.kind === 'smoke'));
  });
});

describe('report: reasons and next steps', () => {
  test('every not-selected row has a category, a concrete reason and a next step', () => {
    const m = multi();
    assert.deepEqual(
      m.notSelected.map((n) => [n.framework, n.candidate, n.category, n.next, n.reason]),
      [
        ['sglang', 'c2', 'sla-failing', 'lower-concurrency', 'p50 TTFT 2140 ms > 2000 ms'],
        ['sglang', 'c1', 'failed', 'fix-parameter', 'launch_server: error: unrecognized arguments: --speculative-algo EAGLE'],
        ['vllm', 'c1', 'oom', 'fix-parameter', 'CUDA out of memory while capturing graphs'],
        ['tensorrt_llm', 'c0', 'timeout', 'retry', 'server did not become healthy within 900 s'],
        ['tensorrt_llm', 'engine', 'unsupported', 'nothing', 'TensorRT-LLM engine backend requested; only the PyTorch backend is supported'],
        ['tokenspeed', 'c1', 'skipped', 'nothing', 'search budget reached'],
      ],
    );
  });

  test('frameworks the caller left out are user-excluded, not unsupported', () => {
    const plan = readFileSync(PLAN, 'utf8').replace('framework_set: [sglang, vllm, tensorrt_llm, tokenspeed]', 'framework_set: [sglang, vllm]');
    const m = report(jsonl([okRow('sglang', 'a', 'chat', 5), okRow('vllm', 'b', 'chat', 4)]), plan);
    const excluded = m.notSelected.filter((n) => n.category === 'user-excluded');
    assert.deepEqual(
      excluded.map((n) => [n.framework, n.next]),
      [
        ['tensorrt_llm', 'nothing'],
        ['tokenspeed', 'nothing'],
      ],
    );
    assert.match(excluded[0]?.advice ?? '', /not a verdict/);
  });

  test('SLA misses advise by cause: latency, failed requests, missing metric', () => {
    const rows = jsonl([
      okRow('vllm', 'slow', 'chat', 5, { metrics: { request_throughput: 5, p50_ttft_ms: 2500 } }),
      okRow('vllm', 'errors', 'chat', 5, { sla: { min_success_rate: 0.99 }, metrics: { request_throughput: 5, success_rate: 0.9 } }),
      okRow('vllm', 'blind', 'chat', 5, { metrics: { request_throughput: 5 } }),
    ]);
    assert.deepEqual(
      report(rows).notSelected.map((n) => [n.candidate, n.next]),
      [
        ['slow', 'lower-concurrency'],
        ['errors', 'retry'],
        ['blind', 'investigate'],
      ],
    );
  });
});

describe('report: caveats and columns', () => {
  test('simulated rows are counted and labelled', () => {
    const m = report(jsonl([okRow('sglang', 'a', 'chat', 5, { simulated: true }), okRow('vllm', 'b', 'chat', 4)]));
    assert.equal(m.simulatedRows, 1);
    assert.ok(m.candidates[0]?.simulated);
    assert.match(m.caveats.find((c) => c.kind === 'simulated')?.text ?? '', /1 of 2 rows .* simulated, not performance results/);
    assert.match(renderReportMarkdown(m), /> \*\*Simulated:\*\* 1 of 2 rows/);
  });

  test('synthetic workload, bounded search, substitutions and mixed clients are caveats', () => {
    const plan = `${readFileSync(PLAN, 'utf8')}\nsubstitutions:\n  - {framework: vllm, from: max_num_partial_prefills, to: null, reason: not in vllm serve --help=all}\n`;
    const rows = jsonl([okRow('sglang', 'a', 'chat', 5, { client: { name: 'autobench', version: '0.1.0' } }), okRow('vllm', 'b', 'chat', 4, { client: { name: 'vllm bench serve', version: '0.11.0' } })]);
    const m = report(rows, plan);
    const kinds = m.caveats.map((c) => c.kind);
    for (const k of ['synthetic', 'incomplete-search', 'substitution', 'fairness'] as const) assert.ok(kinds.includes(k), `${k} in ${kinds.join(',')}`);
    assert.match(m.caveats.find((c) => c.kind === 'substitution')?.text ?? '', /vllm: max_num_partial_prefills dropped \(not in vllm serve --help=all\)/);
  });

  test('optional metric columns appear only when a row has them', () => {
    const labels = multi().columns.map((c) => c.label);
    assert.ok(labels.includes('Accept len') && labels.includes('Cache hit'), labels.join());
    assert.ok(!labels.includes('Pre-scheduler ms') && !labels.includes('Memory residency'), labels.join());
    const plain = report(jsonl([okRow('sglang', 'a', 'chat', 5)])).columns.map((c) => c.label);
    assert.ok(!plain.includes('Accept len') && !plain.includes('Cache hit'), plain.join());
  });
});

describe('report: profiler handoff', () => {
  test('names the scenarios SGLang lost, with their exact lengths and the prefill/decode shapes', () => {
    const m = multi();
    assert.ok(m.handoff);
    assert.deepEqual(
      m.handoff.scenarios.map((s) => s.scenario),
      ['chat'],
    );
    const chat = m.handoff.scenarios[0];
    assert.deepEqual(chat?.lengths, { kind: 'exact', inputLen: 1000, outputLen: 1000 });
    assert.deepEqual(
      chat?.shapes.map((s) => [s.phase, s.inputLen, s.outputLen, s.args]),
      [
        ['prefill', 1000, 1, '--prefill-input-len 1000 --prefill-output-len 1'],
        ['decode', 1, 1000, '--decode-input-len 1 --decode-output-len 1000'],
      ],
    );
    assert.match(chat?.summary ?? '', /chat: vllm wins with c0 at 12\.00 req\/s; SGLang's best is c1 at 9\.00 req\/s \(25% behind\)/);
    assert.doesNotMatch(m.handoff.text, /4090|2048/);
  });

  test('custom data gets p50/p95 buckets for both phases', () => {
    const custom = { kind: 'custom', scenario: 'prod', input_len_p50: 1800, input_len_p95: 4095.6, output_len_p50: 384, output_len_p95: 1024 };
    const m = report(jsonl([okRow('vllm', 'v', 'prod', 9, { workload: custom }), okRow('sglang', 's', 'prod', 6, { workload: custom })]));
    const s = m.handoff?.scenarios[0];
    assert.deepEqual(s?.lengths, { kind: 'buckets', inputP50: 1800, inputP95: 4096, outputP50: 384, outputP95: 1024 });
    assert.deepEqual(
      s?.shapes.map((p) => `${p.phase}/${p.bucket}:${p.inputLen}->${p.outputLen}`),
      ['prefill/p50:1800->1', 'prefill/p95:4096->1', 'decode/p50:1->384', 'decode/p95:1->1024'],
    );
  });

  test('lengths come from the plan when rows lack them; unknown lengths never become defaults', () => {
    const bare = (fw: string, rps: number) => ({ framework: fw, candidate_id: fw, status: 'ok', workload: { scenario: 'summarization' }, sla: { passed: true }, metrics: { request_throughput: rps, p50_ttft_ms: 900, p50_tpot_ms: 40, success_rate: 1 } });
    const fromPlan = report(jsonl([bare('vllm', 3), bare('sglang', 2)]), readFileSync(PLAN, 'utf8'));
    assert.deepEqual(fromPlan.handoff?.scenarios[0]?.lengths, { kind: 'exact', inputLen: 8000, outputLen: 1000 });
    const unknown = report(jsonl([bare('vllm', 3), bare('sglang', 2)]));
    assert.deepEqual(unknown.handoff?.scenarios[0]?.lengths, { kind: 'unknown' });
    assert.deepEqual(unknown.handoff?.scenarios[0]?.shapes, []);
    assert.doesNotMatch(unknown.handoff?.text ?? '', /4090|2048/);
    assert.match(unknown.handoff?.text ?? '', /do not fall back to generic defaults/);
  });

  test('no note when SGLang wins everything, is alone, is missing, or was left out', () => {
    const wins = report(jsonl([okRow('sglang', 's', 'chat', 9), okRow('vllm', 'v', 'chat', 3)]));
    assert.equal(wins.handoff, null);
    assert.match(wins.handoffAbsent, /SGLang wins every scenario/);
    // A one-framework run has nothing to compare with: it never claims SGLang "wins".
    assert.match(report(jsonl([okRow('sglang', 's', 'chat', 9)])).handoffAbsent, /Only SGLang was measured: there is nothing to compare it with/);
    assert.match(report(jsonl([okRow('vllm', 'v', 'chat', 3)])).handoffAbsent, /SGLang was not benchmarked/);
    const plan = readFileSync(PLAN, 'utf8').replace('framework_set: [sglang, vllm, tensorrt_llm, tokenspeed]', 'framework_set: [vllm]');
    assert.match(report(jsonl([okRow('vllm', 'v', 'chat', 3)]), plan).handoffAbsent, /SGLang was left out by the caller/);
  });
});

describe('report: writers and CLI', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-report-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('Markdown has every section and never passes row HTML through', () => {
    const m = report(jsonl([okRow('sglang', '<img src=x onerror=alert(1)>', 'chat', 5), okRow('vllm', 'v|1', 'chat', 9)]));
    const md = renderReportMarkdown(m);
    for (const h of ['## Workload and SLA', '## Hardware and versions', '## Best command per framework and scenario', '## Cross-framework comparison', '## Winners: exact commands', '## Raw vs SLA-passing throughput', '## Not selected', '## Caveats', '## Profiler handoff', '## Artifacts']) {
      assert.ok(md.includes(h), h);
    }
    // Markdown's own escape keeps the tag literal; no HTML entities (they read as noise in the .md file).
    assert.doesNotMatch(md, /(?:^|[^\\])<img/m, 'every <img is backslash-escaped');
    assert.ok(md.includes('\\<img src=x onerror=alert(1)>'));
    assert.ok(md.includes('v\\|1'));
    assert.doesNotMatch(md, /&(?:lt|gt|amp);/);
  });

  test('Markdown escapes only what Markdown needs: pipes, tag starts, entity-like names, backslashes before punctuation', () => {
    assert.equal(mdText('p50 TTFT 2140 ms > 2000 ms'), 'p50 TTFT 2140 ms > 2000 ms');
    assert.equal(mdText('a|b'), 'a\\|b');
    assert.equal(mdText('x < 5 && y'), 'x < 5 && y');
    assert.equal(mdText('<b>bold</b>'), '\\<b>bold\\</b>');
    assert.equal(mdText('&amp; stays text'), '\\&amp; stays text');
    assert.equal(mdText('C:\\runs\\a|b\\*'), 'C:\\runs\\a\\|b\\\\*');
    assert.equal(mdText('line 1\nline 2'), 'line 1<br>line 2');
  });

  test('CSV: one line per row with the recomputed verdict and next step', () => {
    const csv = renderReportCsv(multi());
    const lines = csv.split('\r\n');
    assert.equal(lines.length, 13 + 2);
    assert.match(lines[0] ?? '', /^line,framework,scenario,candidate_id,status,sla,sla_as_written,sla_reasons,request_throughput,/);
    assert.match(csv, /\r\n3,sglang,chat,c2,ok,fail,False,p50 TTFT 2140 ms > 2000 ms,11,/);
  });

  test('the CLI writes Markdown, CSV and a self-contained HTML file', () => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    const md = join(dir, 'r', 'report.md');
    const csv = join(dir, 'r', 'report.csv');
    const html = join(dir, 'r', 'report.html');
    const r = spawnSync(process.execPath, [CLI, 'report', MULTI, '--manifest', PLAN, '--md', md, '--csv', csv, '--html', html], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(md, 'utf8'), /^# Benchmark report: Qwen\/Qwen3-32B\n/);
    assert.equal(readFileSync(csv, 'utf8').split('\r\n').length, 15);
    const page = readFileSync(html, 'utf8');
    const nonce = /script-src 'nonce-([^']+)'/.exec(page)?.[1];
    assert.ok(nonce && nonce.length >= 16, 'CSP nonce');
    assert.match(page, /default-src 'none'/);
    assert.ok(!/\bsrc="http|href="http/.test(page), 'nothing loaded from the network');
    assert.ok(!page.includes("'unsafe-eval'") && !page.includes("'unsafe-inline'"));
    // A second run gets a fresh nonce.
    spawnSync(process.execPath, [CLI, 'report', MULTI, '--html', html], { encoding: 'utf8' });
    assert.notEqual(/script-src 'nonce-([^']+)'/.exec(readFileSync(html, 'utf8'))?.[1], nonce);
  });

  test('schema problems are warnings with their line; a bad line is an error', () => {
    const rows = join(dir, 'schema.jsonl');
    writeFileSync(rows, `${JSON.stringify(okRow('sglang', 'a', 'chat', 5))}\n{"framework": "vllm", "status": "done", "metrics": {"success_rate": 1.5}}\n`);
    const r = spawnSync(process.execPath, [CLI, 'report', rows], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /schema\.jsonl:2: warning: status: expected one of ok, failed/);
    assert.match(r.stderr, /schema\.jsonl:2: warning: metrics\.success_rate: must be <= 1, got 1\.5/);
    assert.match(r.stdout, /## Input problems\n\n- line 2: status: expected one of/);
    writeFileSync(rows, '{"framework": "a"}\n{oops}\n');
    const bad = spawnSync(process.execPath, [CLI, 'report', rows], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /schema\.jsonl:2: invalid JSON: Expecting property name enclosed in double quotes/);
  });
});

describe('the simulated engine\'s speed in the report', () => {
  test('a run manifest with sim: the hardware facts say how much faster than modelled it ran, apart from the numbers', () => {
    const facts = parseRunFacts(JSON.stringify({ model: 'm', sim: { speed: 10, seed: 1, gpu: 'H100' } }), 'manifest.json');
    const m = buildReport([], { rowsFile: 'rows.jsonl', runFacts: facts });
    assert.deepEqual(m.hardware.find((f) => f.label === 'Simulated engine')?.value, 'ran ×10 faster than modelled (rows, rates and benchmark commands are in modelled real time), seed 1, modelled GPU H100');
    assert.equal(buildReport([], { rowsFile: 'rows.jsonl', runFacts: parseRunFacts(JSON.stringify({ model: 'm' }), 'manifest.json') }).hardware.find((f) => f.label === 'Simulated engine'), undefined);
  });
});
