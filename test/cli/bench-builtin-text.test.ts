// `autobench bench --dataset-name builtin-text` against a simulated server: the shipped prompts sent as text on the
// completions and chat endpoints, at the --random-* lengths, and the JSON line naming the dataset.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runBench } from '../../src/cli/bench';
import { withSim } from '../support/sim';

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'autobench-bench-bt-'))));
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

describe('autobench bench --dataset-name builtin-text', () => {
  for (const backend of ['openai', 'openai-chat'] as const) {
    test(`${backend}: every request completes; the JSON line says builtin-text with the requested lengths`, { timeout: 60_000 }, async () => {
      await withSim('vllm', ['Qwen/Qwen3-8B', '--max-model-len', '4096', '--sim-speed', '20'], async (s) => {
        const out = join(dir, `${backend}.jsonl`);
        const a = io();
        const argv = ['--backend', backend, '--base-url', s.url, '--tokenizer', 'autobench-sim', '--dataset-name', 'builtin-text', '--num-prompts', '10', '--random-input-len', '400', '--random-output-len', '16', '--random-range-ratio', '1', '--seed', '3', '--output-file', out, '--output-details', '--disable-tqdm'];
        assert.equal(await runBench(argv, a, {}), 0, a.text().err);
        assert.match(a.text().err, /10 requests \(builtin-text\)/);
        assert.match(a.text().err, /builtin-text: \d+ natural-language prompts shipped with autobench/);
        const line = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, unknown>;
        assert.equal(line.dataset_name, 'builtin-text');
        assert.equal(line.completed, 10);
        assert.equal(line.random_input_len, 400);
        assert.equal(line.total_output_tokens, 10 * 16);
        const inputs = line.input_lens as number[];
        assert.ok(inputs.every((n) => n >= 390 && n <= 400), JSON.stringify(inputs));
      });
    });
  }
});
