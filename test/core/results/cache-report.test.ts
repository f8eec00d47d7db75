// Issue 25, audit #18: an empty Cache hit column for SGLang or vLLM is explained (the flag their servers need), not left blank.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReport } from '../../../src/core/results/report';
import { readRows } from '../../../src/core/results/rows';

function row(framework: string, cmd: string, cache: number | null): Record<string, unknown> {
  return {
    framework,
    candidate_id: 'c0',
    status: 'ok',
    server_command: cmd,
    workload: { scenario: 'chat', input_len: 2048, output_len: 256 },
    sla: { max_p50_ttft_ms: 2000, passed: true },
    metrics: { request_throughput: 3, p50_ttft_ms: 500, p50_tpot_ms: 20, cache_hit_rate: cache },
  };
}

function caveats(rows: object[]): string[] {
  const read = readRows(rows.map((r) => JSON.stringify(r)).join('\n'), 'rows.jsonl');
  assert.ok(read.ok);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl' }).caveats.map((c) => c.text);
}

describe('audit #18: cached tokens are reported only when the server is asked to', () => {
  test('SGLang and vLLM without their flags: a caveat names the flag; TensorRT-LLM reports, so none for it', () => {
    const got = caveats([
      row('tensorrt_llm', 'trtllm-serve serve m', 0.4),
      row('sglang', 'python -m sglang.launch_server --model-path m', null),
      row('vllm', 'vllm serve m', null),
    ]);
    assert.ok(got.includes('sglang: Cache hit is empty, not zero: its server reports cached tokens only when started with --enable-cache-report; add it to base_server_flags to fill the column.'), got.join('\n'));
    assert.ok(got.some((t) => t.startsWith('vllm: Cache hit is empty, not zero: its server reports cached tokens only when started with --enable-prompt-tokens-details')), got.join('\n'));
    assert.ok(!got.some((t) => t.startsWith('tensorrt_llm: Cache hit')));
  });

  test('started with the flag and still empty: said so; every framework reporting: no caveat', () => {
    const got = caveats([row('tensorrt_llm', 'trtllm-serve serve m', 0.4), row('sglang', 'python -m sglang.launch_server --enable-cache-report', null)]);
    assert.ok(got.some((t) => /^sglang: Cache hit is empty, not zero: .*although started with --enable-cache-report/.test(t)), got.join('\n'));
    assert.ok(!caveats([row('tensorrt_llm', 'trtllm-serve serve m', 0.4), row('sglang', 'x --enable-cache-report', 0.2)]).some((t) => t.includes('Cache hit')));
  });
});
