// `autobench run` on the simulator with a plan's dataset kinds beyond random: a custom JSONL and the built-in text
// (named, and the default for speculative candidates): rows ok, and the rows and the manifest say which dataset ran.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { cleanup, planYaml, readRowsFile, runOnSim, tempDir } from '../support/runner';

const VLLM = 'base_server_flags:\n  max_model_len: 4096';

function manifestOf(outDir: string): { workload: Record<string, unknown> } {
  return JSON.parse(readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as { workload: Record<string, unknown> };
}

describe('run plans with dataset kinds on the simulator', () => {
  test('a custom JSONL: rows ok, their workload block says custom, its scenario, and the file\'s rows were sent', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'support.jsonl');
      const rows = Array.from({ length: 30 }, (_, i) => JSON.stringify({ prompt: `Customer ${i} asks how to reset a password on the mobile app.`, output_len: 12 }));
      writeFileSync(file, `${rows.join('\n')}\n`);
      const plan = planYaml({ dataset: `kind: custom\npath: ${file}\nnum_prompts: 6\nscenario_names: [support]\ninput_len: [64]\noutput_len: [12]`, frameworks: { vllm: VLLM }, search: 'max_candidates_per_framework: 1' });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid' });
      const measured = readRowsFile(run.outDir).filter((r) => r.framework === 'vllm');
      assert.ok(measured.length >= 1);
      for (const r of measured) {
        assert.equal(r.status, 'ok', String(r.failure_reason));
        const w = r.workload as Record<string, unknown>;
        assert.equal(w.kind, 'custom');
        assert.equal(w.dataset_name, 'custom');
        assert.equal(w.scenario, 'support');
        assert.equal(r.simulated, true);
      }
      const m = manifestOf(run.outDir).workload;
      assert.equal(m.kind, 'custom');
      assert.equal(m.kind_source, 'plan');
      assert.equal(m.dataset_path, file);
      assert.deepEqual(m.prompt_reuse, []);
      const raw = JSON.parse(readFileSync(path.join(run.outDir, (measured[0]?.artifacts as { raw_result: string }).raw_result), 'utf8')) as { result: { notes: string[] } };
      assert.ok(raw.result.notes.some((n) => /^custom: prompt set \d+ sends rows \d+\.\.\d+ of the 30 usable rows$/.test(n)), raw.result.notes.join('\n'));
    } finally {
      cleanup(dir);
    }
  });

  test('builtin-text by default for a speculative plan that names no kind: rows ok and labelled builtin-text, the manifest and log say why', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    try {
      const sglang = 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\n  speculative_algorithm: NGRAM\n  speculative_num_draft_tokens: 4';
      const plan = planYaml({ dataset: 'num_prompts: 6\nscenario_names: [chat]\ninput_len: [300]\noutput_len: [24]', frameworks: { sglang }, search: 'max_candidates_per_framework: 1' });
      const logs: string[] = [];
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', onEvent: (e) => (e.type === 'log' ? logs.push(e.message) : undefined) });
      const measured = readRowsFile(run.outDir).filter((r) => r.framework === 'sglang');
      assert.ok(measured.length >= 1);
      for (const r of measured) {
        assert.equal(r.status, 'ok', String(r.failure_reason));
        assert.equal((r.workload as Record<string, unknown>).kind, 'builtin-text');
        assert.match(String(r.benchmark_command), /--dataset-name builtin-text --random-input-len 300 --random-output-len 24 /);
      }
      const m = manifestOf(run.outDir).workload;
      assert.equal(m.kind, 'builtin-text');
      assert.equal(m.kind_source, 'speculative-default');
      assert.match(String(m.kind_note), /plan names no dataset\.kind and candidates use speculative decoding \(sglang baseline: speculative_algorithm\)/);
      assert.ok(logs.some((l) => /dataset: builtin-text, since the plan names no dataset\.kind and 1 candidate\(s\) use speculative decoding/.test(l)), logs.join('\n'));
    } finally {
      cleanup(dir);
    }
  });

  test('a CSV trace (BurstGPT columns): replayed at its pace, one scenario, rows ok and saying trace-csv', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'burst.csv');
      const lines = ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type', ...Array.from({ length: 20 }, (_, i) => `${(i * 0.25).toFixed(2)},ChatGPT,${200 + 10 * i},16,${216 + 10 * i},Conversation log`)];
      writeFileSync(file, `${lines.join('\n')}\n`);
      const plan = planYaml({ dataset: `kind: trace-csv\npath: ${file}\nnum_prompts: 10\nscenario_names: [burst]\ninput_len: [300]\noutput_len: [16]\ntrace:\n  slowdown_factor: 1`, frameworks: { vllm: VLLM }, search: 'max_candidates_per_framework: 1' });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const measured = readRowsFile(run.outDir).filter((r) => r.framework === 'vllm');
      assert.ok(measured.length >= 1);
      for (const r of measured) {
        assert.equal(r.status, 'ok', String(r.failure_reason));
        const w = r.workload as Record<string, unknown>;
        assert.deepEqual([w.kind, w.scenario], ['trace-csv', 'burst']);
        assert.ok(String(r.benchmark_command).includes('--dataset-name trace-csv') && String(r.benchmark_command).includes(`--dataset-path ${file}`), String(r.benchmark_command));
      }
    } finally {
      cleanup(dir);
    }
  });
});

