// Startup failures predicted exactly: for every candidate of every shipped config (and the demo plan, and a plan
// built to fail), the prediction says oom/fails exactly when the real simulated server, started in-process with the
// same argv and GPU, refuses to start, and its reason is the server's error line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRunPlan } from '../../src/core/plan/build';
import type { RunPlan } from '../../src/core/plan/types';
import { planGpu, predictCandidate } from '../../src/predict/plan';
import { classifyFailure } from '../../src/runner/classify';
import { SimStartError, startSimServer } from '../../src/sim/serve';
import { simTargetFor } from '../../src/sim/shim';
import { REPO, SHIPPED, yamlFiles } from '../support/fixtures';

const DEMO = join(REPO, 'configs', 'examples', 'demo.plan.yaml');
const MEMORY = join(__dirname, 'fixtures', 'memory.plan.yaml');

function planOf(file: string): RunPlan {
  const plan = readRunPlan({ text: readFileSync(file, 'utf8'), path: file });
  assert.deepEqual(plan.problems, [], `${file} reads as a runnable plan`);
  return plan;
}

interface Checked {
  file: string;
  id: string;
  status: string;
  reason: string | undefined;
  /** The server's error lines (undefined: it started). */
  lines: string[] | undefined;
  framework: string;
}

/** Predicts every candidate that runs and starts the real simulated server for it; returns both sides. */
async function checkPlan(file: string): Promise<Checked[]> {
  const plan = planOf(file);
  // Without scenarios the prediction stops at the startup verdict (what this test is about): no load is simulated.
  const startupOnly: RunPlan = { ...plan, scenarios: [] };
  const gpu = planGpu(plan);
  const out: Checked[] = [];
  for (const f of plan.frameworks) {
    if (f.status !== 'run') continue;
    for (const cand of f.candidates) {
      if (cand.skip) continue;
      const pred = predictCandidate(startupOnly, f.framework, cand, new Map());
      const target = simTargetFor(cand.argv);
      assert.ok(target, `${file} ${f.framework} ${cand.id}: a command the simulator can start: ${cand.command}`);
      let lines: string[] | undefined;
      try {
        const server = await startSimServer({ framework: target.framework, args: target.args, ...(target.invocation ? { invocation: target.invocation } : {}), host: '127.0.0.1', port: 0, sim: { logIntervalMs: 0, ...(gpu ? { gpu } : {}) } });
        await server.close();
      } catch (e) {
        if (!(e instanceof SimStartError)) throw e;
        lines = e.lines;
      }
      out.push({ file, id: `${f.framework} ${cand.id}`, framework: f.framework, status: pred.status, reason: pred.reason, lines });
    }
  }
  return out;
}

function assertAgree(c: Checked): void {
  const where = `${c.file}: ${c.id}`;
  if (c.lines === undefined) {
    assert.equal(c.status, 'ok', `${where}: the server starts, the prediction says ${c.status} (${c.reason ?? ''})`);
    return;
  }
  assert.ok(c.status === 'oom' || c.status === 'fails', `${where}: the server refuses to start (${c.lines.join(' | ')}) but the prediction says ${c.status}`);
  // The reason is the server's own first error line (the simulator's notes, `[autobench-sim] ...`, explain it).
  const first = c.lines.find((l) => !l.startsWith('[autobench-sim]')) ?? c.lines[0];
  assert.equal(c.reason, first, `${where}: the predicted reason is the server's first error line`);
}

const checked = new Map<string, Promise<Checked[]>>();
/** Each plan is started once; the tests below read the same results. */
function checks(file: string): Promise<Checked[]> {
  let p = checked.get(file);
  if (!p) checked.set(file, (p = checkPlan(file)));
  return p;
}

describe('predicted startup failures match the simulated server', () => {
  test(`every candidate of the ${yamlFiles(SHIPPED).length} shipped configs`, async () => {
    let n = 0;
    for (const file of yamlFiles(SHIPPED)) {
      for (const c of await checks(file)) {
        assertAgree(c);
        n++;
      }
    }
    assert.ok(n > 1000, `every candidate was started (${n})`);
  });

  test('every candidate of the demo plan', async () => {
    const cs = await checks(DEMO);
    assert.equal(cs.length, 6);
    cs.forEach(assertAgree);
  });

  test('a plan built to fail: weights that do not fit, too little or too much memory, a context the KV cache cannot hold', async () => {
    const cs = await checks(MEMORY);
    cs.forEach(assertAgree);
    const statuses = new Set(cs.map((c) => c.status));
    for (const s of ['ok', 'oom', 'fails']) assert.ok(statuses.has(s), `the plan has ${s} candidates (${[...statuses].join(', ')})`);
    for (const fw of ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']) assert.ok(cs.some((c) => c.framework === fw && c.lines !== undefined), `${fw} has a refused candidate`);
    // The kinds of failure the simulator knows, each predicted.
    const reasons = cs.map((c) => c.reason ?? '').join('\n');
    for (const re of [/CUDA out of memory/, /Not enough memory for the KV cache/, /No available memory for the cache blocks/, /less than desired GPU memory utilization/, /too small to hold one sequence/, /larger than the maximum number of tokens/]) {
      assert.match(reasons, re);
    }
  });

  // The runner (runner/classify.ts, reading the server's log) and the prediction read the same patterns
  // (core/frameworks/failures.ts): a failure has one name in the adaptive strategy and the report.
  test('oom vs fails: the prediction classifies as the runner does', async () => {
    const differ: string[] = [];
    for (const c of await checks(MEMORY)) {
      if (c.lines === undefined) continue;
      const runner = classifyFailure(c.framework as never, c.lines.join('\n'), 'the server exited').status;
      const predicted = c.status === 'oom' ? 'oom' : 'failed';
      if (runner !== predicted) differ.push(`${c.id}: predicted ${c.status}, runner ${runner}: ${c.lines[0] ?? ''}`);
    }
    assert.deepEqual(differ, []);
  });
});
