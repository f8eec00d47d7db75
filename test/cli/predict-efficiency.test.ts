// `autobench predict --sim-efficiency SPEC`: the matching candidates' engines scaled by known factors (the true
// capacities a benchmark compares against), the others untouched, the SPEC recorded in --out, and a bad SPEC a
// one-line usage error. Runs the CLI from source (tsx), so no build is needed.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobOptions } from '../../src/cli/predict-pool';
import { predictFile } from '../../src/predict/folder';
import type { PlanPrediction } from '../../src/predict/types';
import { EFFICIENCY_FORM, parseEfficiency } from '../../src/sim/efficiency';
import { REPO } from '../support/fixtures';

const MAIN = join(REPO, 'src', 'cli', 'main.ts');
const DEMO = join(REPO, 'configs', 'examples', 'demo.plan.yaml');

function run(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', AUTOBENCH_DEBUG: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The demo plan made decode-bound: short prompts, long answers, an SLA loose enough that throughput sets the capacity. */
function decodePlan(dir: string): string {
  const text = readFileSync(DEMO, 'utf8')
    .replace('scenario_names: [chat, summarization]', 'scenario_names: [decode]')
    .replace('input_len: [512, 3072]', 'input_len: [128]')
    .replace('output_len: [128, 128]', 'output_len: [512]')
    .replace('max_p50_ttft_ms: 300', 'max_p50_ttft_ms: 5000')
    .replace('max_p50_tpot_ms: 12', 'max_p50_tpot_ms: 500');
  assert.match(text, /scenario_names: \[decode\][\s\S]*max_p50_tpot_ms: 500/);
  const file = join(dir, 'decode.plan.yaml');
  writeFileSync(file, text);
  return file;
}

/** Capacity per `framework candidate` on the plan's one scenario. */
function capacities(p: PlanPrediction): Map<string, number> {
  return new Map(p.candidates.map((c) => [`${c.framework} ${c.candidate}`, c.scenarios[0]?.capacity ?? NaN]));
}

describe('autobench predict --sim-efficiency', () => {
  let dir: string;
  let plan: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-predict-efficiency-'));
    plan = decodePlan(dir);
  });

  test('a decode-bound framework term scales its candidates\' capacity by about the factor; other frameworks keep theirs', () => {
    const base = run(['predict', plan, '--json', '--no-calibration']);
    assert.equal(base.code, 0, base.err);
    const out = join(dir, 'predict.json');
    const fast = run(['predict', plan, '--json', '--no-calibration', '--sim-efficiency', 'vllm:1.25', '--out', out]);
    assert.equal(fast.code, 0, fast.err);
    const [b, f] = [capacities((JSON.parse(base.out) as PlanPrediction[])[0] as PlanPrediction), capacities((JSON.parse(fast.out) as PlanPrediction[])[0] as PlanPrediction)];
    assert.deepEqual([...f.keys()], ['sglang baseline', 'sglang c1', 'sglang c2', 'vllm baseline', 'vllm c1', 'vllm c2']);
    for (const [key, cap] of f) {
      const ratio = cap / (b.get(key) as number);
      // The factor scales compute and bandwidth, not the fixed per-step costs (overheads, per-layer floors): where the
      // SLA's latency sits near those, the headroom above them grows by more than the factor. So at least about the
      // factor (the bracket closes within 5%), at most its square.
      if (key.startsWith('vllm')) assert.ok(ratio > 1.25 / 1.1 && ratio < 1.25 * 1.25 * 1.1, `${key}: x${ratio}`);
      else assert.equal(cap, b.get(key), key);
    }
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { sim_efficiency?: string; predictions: PlanPrediction[] };
    assert.equal(doc.sim_efficiency, 'vllm:1.25');
    assert.deepEqual(capacities(doc.predictions[0] as PlanPrediction), f);
  });

  test('a flag=value term scales only the candidates that give that value', () => {
    const base = predictFile(plan);
    const slow = predictFile(plan, { efficiency: parseEfficiency('vllm.max-num-seqs=8:0.8') });
    assert.ok(base.ok && slow.ok && 'prediction' in base && 'prediction' in slow);
    const [b, s] = [capacities(base.prediction), capacities(slow.prediction)];
    const ratio = (s.get('vllm c1') as number) / (b.get('vllm c1') as number);
    assert.ok(ratio > 0.8 / 1.1 && ratio < 0.8 * 1.1, `vllm c1 (max_num_seqs 8): x${ratio}`);
    for (const key of ['sglang baseline', 'sglang c1', 'vllm baseline']) assert.equal(s.get(key), b.get(key), key);
  });

  test('worker threads get the terms with each file', () => {
    const efficiency = parseEfficiency('vllm:1.1');
    assert.deepEqual(jobOptions({ index: 0, file: plan, efficiency }), { efficiency });
    assert.deepEqual(structuredClone(efficiency), efficiency, 'the terms survive postMessage');
  });

  test('a bad SPEC: exit 2 and one line naming the term and the form', () => {
    const r = run(['predict', plan, '--sim-efficiency', 'vllm:1.2,sglang.max_num_seqs=8:1.1']);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.equal(r.err, `autobench: --sim-efficiency: bad term 'sglang.max_num_seqs=8:1.1': sglang has no flag 'max_num_seqs'; expected ${EFFICIENCY_FORM}\n`);
    const help = run(['predict', '--help']);
    assert.match(help.out, /^ {2}--sim-efficiency SPEC\n/m);
  });
});
