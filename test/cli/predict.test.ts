// `autobench predict` as a user runs it: the built CLI's table (headed as a PREDICTION), --json, --out, --gpu,
// files that cannot be predicted (named, the others still predicted, exit 1) and worker threads.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calibrateRun, readRunDir } from '../../src/predict/from-runs';
import { PRIOR_REL_ERROR } from '../../src/predict/prior';
import { mergePoints, saveStore, STORE_VERSION, type CalibrationStore } from '../../src/predict/store';
import type { PlanPrediction } from '../../src/predict/types';
import { REPO } from '../support/fixtures';
import { writeSyntheticRun } from '../predict/synthetic-run';

const CLI = join(REPO, 'dist', 'cli.js');
const DEMO = join('configs', 'examples', 'demo.plan.yaml');
const MEMORY = join('test', 'predict', 'fixtures', 'memory.plan.yaml');
const HEADER = 'PREDICTED (simulated engine model, not measured)';
const STACK = /\n\s+at .+:\d+/;

function run(args: string[], cwd = REPO): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', AUTOBENCH_DEBUG: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The table's candidate lines: framework, id, GPUs, status first. */
function candidateLines(out: string): string[] {
  return out.split('\n').filter((l) => /^(sglang|vllm|tensorrt_llm|tokenspeed)\s+\S+\s+(\d+|-)\s+(ok|oom|fails|skipped)\b/.test(l));
}

describe('autobench predict', () => {
  let dir: string;
  before(() => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    assert.ok(existsSync(join(REPO, 'dist', 'predict-worker.js')), 'dist/predict-worker.js missing: run npm run build first');
    dir = mkdtempSync(join(tmpdir(), 'autobench-predict-'));
  });

  test('the table: the PREDICTED header, model and GPU, every candidate, the leader and the fronts', () => {
    const r = run(['predict', DEMO]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.startsWith(`${HEADER}: ${DEMO}\n`), r.out.slice(0, 200));
    assert.match(r.out, /^model: Qwen\/Qwen3-8B {3}GPU: H100 /m);
    assert.match(r.out, /^model shapes: of Qwen\/Qwen3-8B \(its published config\)$/m);
    assert.match(r.out, /^SLA: p50 TTFT <= 300 ms, p50 TPOT <= 12 ms/m);
    assert.match(r.out, /^framework\s+candidate\s+GPUs\s+status\s+cap req\/s\s+TTFT ms\s+TPOT ms\s+cap req\/s/m);
    const lines = candidateLines(r.out);
    assert.deepEqual(
      lines.map((l) => l.split(/\s+/).slice(0, 4).join(' ')),
      ['sglang baseline 1 ok', 'sglang c1 1 ok', 'sglang c2 1 ok', 'vllm baseline 1 ok', 'vllm c1 1 ok', 'vllm c2 1 ok'],
    );
    // Per scenario: capacity, p50 TTFT, p50 TPOT (numbers).
    for (const l of lines) assert.equal(l.split(/\s+/).slice(4).filter((x) => /^(>=)?\d+(\.\d+)?$/.test(x)).length, 6, l);
    assert.match(r.out, /^predicted leader \(highest capacity\):\n {2}chat: (sglang|vllm) \S+ \([\d.]+ req\/s\)\n {2}summarization: /m);
    assert.match(r.out, /^ {4}throughput\/GPU vs tokens\/s per user: \S/m);
    assert.match(r.out, /^ {4}throughput\/GPU vs p50 TTFT: +\S/m);
    assert.match(r.out, /^not predicted: tensorrt_llm: skipped: unsupported/m);
    assert.ok(r.out.split('\n').every((l) => l.length <= 120), 'lines stay readable');
    assert.doesNotMatch(r.out, /python -m sglang|vllm serve/, 'ids, not commands');
  });

  test('a model the simulator does not know is predicted on ESTIMATED shapes, and the table and JSON say so', () => {
    const file = join(dir, 'unknown-model.yaml');
    writeFileSync(file, readFileSync(join(REPO, DEMO), 'utf8').replace(/Qwen\/Qwen3-8B/g, 'some-lab/Brand-New-9B'));
    const r = run(['predict', file, '--no-calibration']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^model shapes: ESTIMATED from the name \(an unknown model; a local folder with its config\.json gives its shapes\)$/m);
    const j = JSON.parse(run(['predict', file, '--json', '--no-calibration']).out) as PlanPrediction[];
    assert.equal(j[0]?.modelEstimated, true);
  });

  test('oom and fails lines show the reason, cut to the line width', () => {
    const r = run(['predict', MEMORY]);
    assert.equal(r.code, 0, r.err);
    const lines = candidateLines(r.out);
    assert.equal(lines.length, 29);
    const oom = lines.filter((l) => /\boom\b/.test(l));
    assert.ok(oom.length > 5);
    // Out of memory exactly where the runner would call the server's log an OOM (core/frameworks/failures.ts).
    assert.ok(oom.every((l) => /(OutOfMemoryError|Not enough memory|No available memory|Free memory on device|too small to hold|larger than the maximum)/.test(l)), oom.join('\n'));
    assert.ok(lines.some((l) => /\boom\s+ValueError: Free memory on device/.test(l)));
    assert.ok(lines.some((l) => /\bfails\s+/.test(l)), 'a startup failure that is not about memory');
    assert.ok(lines.some((l) => l.endsWith('...')), 'a long reason is cut with ...');
  });

  test('--json prints the PlanPrediction array', () => {
    const r = run(['predict', DEMO, '--json']);
    assert.equal(r.code, 0, r.err);
    const preds = JSON.parse(r.out) as PlanPrediction[];
    assert.equal(preds.length, 1);
    const p = preds[0] as PlanPrediction;
    assert.equal(p.simulated, true);
    assert.equal(p.file, DEMO);
    assert.equal(p.model, 'Qwen/Qwen3-8B');
    assert.equal(p.gpu, 'H100');
    assert.equal(p.candidates.length, 6);
    assert.deepEqual(
      p.fronts.map((f) => f.scenario),
      ['chat', 'summarization'],
    );
    for (const c of p.candidates) {
      assert.equal(c.status, 'ok');
      for (const s of c.scenarios) {
        assert.ok(s.capacity > 0 && s.curve.length > 0);
        assert.equal(s.atCapacity?.rate, s.capacity);
      }
    }
    assert.doesNotMatch(r.out, new RegExp(HEADER.replace(/[()]/g, '\\$&')), 'no table in JSON mode');
  });

  test('--out writes the predict.json document; a folder gets predict.json in it', () => {
    const file = join(dir, 'out', 'p.json');
    const r = run(['predict', DEMO, '--out', file]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.startsWith(HEADER), 'the table still prints');
    assert.match(r.err, /wrote .*p\.json/);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { simulated: boolean; tool: string; generated_at: string; gpu: string | null; predictions: PlanPrediction[]; errors: unknown[] };
    assert.equal(doc.simulated, true);
    assert.equal(doc.tool, 'autobench predict');
    assert.ok(!Number.isNaN(Date.parse(doc.generated_at)) && doc.generated_at.endsWith('Z'));
    assert.equal(doc.gpu, null);
    assert.equal(doc.predictions.length, 1);
    assert.equal(doc.predictions[0]?.candidates.length, 6);
    assert.deepEqual(doc.errors, []);
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const f = run(['predict', DEMO, '--out', folder, '--json']);
    assert.equal(f.code, 0, f.err);
    assert.ok(existsSync(join(folder, 'predict.json')));
  });

  test('a file that cannot be read as a plan: named with its reason, exit 1, the other files still predicted', () => {
    const bad = join(dir, 'broken.yaml');
    writeFileSync(bad, 'model: [\n  name: : :\n');
    const out = join(dir, 'with-errors.json');
    const r = run(['predict', bad, DEMO, join(dir, 'missing.yaml'), '--out', out]);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`error: ${bad.replace(/[.]/g, '\\.')}: cannot be predicted:\\n {2}\\S`));
    assert.match(r.err, /missing\.yaml: cannot be predicted:\n {2}no such file or directory/);
    assert.ok(r.out.includes(`${HEADER}: ${DEMO}`), 'the demo plan is still predicted');
    assert.equal(candidateLines(r.out).length, 6);
    assert.doesNotMatch(r.err, STACK);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { predictions: PlanPrediction[]; errors: Array<{ file: string; problems: string[] }> };
    assert.equal(doc.predictions.length, 1);
    assert.deepEqual(doc.errors.map((e) => e.file).sort(), [bad, join(dir, 'missing.yaml')].sort());
    assert.ok(doc.errors.every((e) => e.problems.length > 0));
  });

  test('--gpu picks the simulated GPU (any spelling of a known one); an unknown one is exit 2', () => {
    const r = run(['predict', DEMO, '--gpu', 'h200']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^model: Qwen\/Qwen3-8B {3}GPU: H200 \(--gpu\)/m);
    const json = run(['predict', DEMO, '--gpu', 'B200', '--json']);
    assert.equal((JSON.parse(json.out) as PlanPrediction[])[0]?.gpu, 'B200');
    const bad = run(['predict', DEMO, '--gpu', 'RTX-4090']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--gpu RTX-4090: the simulated engine has no such GPU; choose one of A100-80GB, H100, H200, B200, B300, MI300X, GH200, GB200, L40S, RTX-PRO-6000-Blackwell-Server, auto/);
    assert.equal(bad.out, '');
    assert.doesNotMatch(bad.err, STACK);
  });

  test('worker threads print the same as one thread, in file order', () => {
    const one = run(['predict', MEMORY, DEMO, '--jobs', '1']);
    const two = run(['predict', MEMORY, DEMO, '--jobs', '2']);
    assert.equal(one.code, 0, one.err);
    assert.equal(two.code, 0, two.err);
    assert.equal(two.out, one.out);
    // Files are sorted as pathlib sorts them (validate's order), whatever order they were given in.
    const heads = two.out.split('\n').filter((l) => l.startsWith(HEADER));
    assert.deepEqual(heads, [`${HEADER}: ${DEMO}`, `${HEADER}: ${MEMORY}`]);
  });

  test('usage: --help, the top-level help lists it, no PATH and a bad --jobs are exit 2', () => {
    const h = run(['predict', '--help']);
    assert.equal(h.code, 0);
    assert.match(h.out, /^usage: autobench predict PATH\.\.\. /);
    assert.match(h.out, /never a GPU measurement/);
    assert.match(h.out, /"generated_at"/);
    const top = run(['--help']);
    assert.match(top.out, /^ {2}predict PATH\.\.\. +PREDICT/m);
    const none = run(['predict']);
    assert.equal(none.code, 2);
    assert.match(none.err, /predict needs at least one PATH/);
    const jobs = run(['predict', DEMO, '--jobs', 'two']);
    assert.equal(jobs.code, 2);
    assert.match(jobs.err, /--jobs two: give a whole number/);
  });

  test('--calibration: the store entry for the plan\'s GPU calibrates its framework, the header and JSON say which', () => {
    const read = readRunDir(writeSyntheticRun(join(dir, 'cal-run')).dir);
    assert.ok(read.ok);
    const store: CalibrationStore = { version: STORE_VERSION, entries: [] };
    for (const f of calibrateRun(read.run).frameworks) mergePoints(store, f.key, f.points, 'synthetic-run-1');
    const file = join(dir, 'cal.json');
    saveStore(file, store);
    const t = run(['predict', DEMO, '--calibration', file]);
    assert.equal(t.code, 0, t.err);
    assert.match(t.out, /^model: Qwen\/Qwen3-8B {3}GPU: H100 {3}calibrated \(1 of 2 frameworks\)$/m);
    assert.match(t.out, new RegExp(`^ {2}sglang: uncalibrated \\(no entry in .*cal\\.json for this GPU; relative error ~${Math.round(PRIOR_REL_ERROR * 100)}%\\)$`, 'm'));
    assert.ok(t.out.includes(`  vllm: calibrated by ${file}`), t.out.slice(0, 800));
    assert.match(t.out, /\(vllm 0\.20\.1\+autobench\.sim on H100, simulated runs, 3 candidates\)$/m);
    assert.ok(t.out.split('\n').every((l) => l.length <= 120));
    const cal = (JSON.parse(run(['predict', DEMO, '--calibration', file, '--json']).out) as Array<PlanPrediction & { calibration: Array<{ framework: string; calibrated: boolean; text: string }> }>)[0]!;
    const plain = (JSON.parse(run(['predict', DEMO, '--no-calibration', '--json']).out) as Array<PlanPrediction & { calibration: Array<{ calibrated: boolean }> }>)[0]!;
    assert.equal(cal.calibrated, true);
    assert.deepEqual(cal.calibration.map((c) => [c.framework, c.calibrated]), [['sglang', false], ['vllm', true]]);
    assert.equal(plain.calibrated, false);
    assert.ok(plain.calibration.every((c) => !c.calibrated));
    const caps = (p: PlanPrediction, fw: string) => p.candidates.filter((c) => c.framework === fw).flatMap((c) => c.scenarios.map((s) => s.capacity));
    assert.notDeepEqual(caps(cal, 'vllm'), caps(plain, 'vllm'), 'calibrated vllm capacities differ');
    assert.deepEqual(caps(cal, 'sglang'), caps(plain, 'sglang'), 'sglang has no entry: unchanged');
    // Each vllm candidate was measured before (an exact store point without capacityError): another launch's noise, 10%.
    for (const c of cal.candidates) assert.equal(c.relError, c.framework === 'vllm' ? 0.1 : PRIOR_REL_ERROR, `${c.framework} ${c.candidate}`);
    // The default store: .autobench/calibration.json in the current folder, unless --no-calibration.
    const ws = join(dir, 'ws');
    mkdirSync(join(ws, '.autobench'), { recursive: true });
    writeFileSync(join(ws, '.autobench', 'calibration.json'), readFileSync(file));
    const demo = join(REPO, DEMO);
    assert.match(run(['predict', demo], ws).out, /^ {2}vllm: calibrated by \.autobench\/calibration\.json \(vllm /m);
    assert.doesNotMatch(run(['predict', demo, '--no-calibration'], ws).out, /calibrated by/);
    const missing = run(['predict', DEMO, '--calibration', join(dir, 'none.json')]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /--calibration .*none\.json: no such file; write one with 'autobench calibrate RUN_DIR --store /);
    assert.doesNotMatch(missing.err, STACK);
  });
});
