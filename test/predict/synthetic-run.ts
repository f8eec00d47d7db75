// A run directory as `autobench run --out` writes it, made without a server: the demo plan, and rows of a rate search
// per candidate and scenario measured on the virtual clock of a PERTURBED engine (hidden --sim-perturb factors; seed 4 by
// default: under seed 3 every vllm candidate of the demo plan misses the TPOT limit at any rate, so nothing is measured).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import { readRunPlan } from '../../src/core/plan/build';
import { predictCapacity } from '../../src/predict/capacity';
import { engineFor, predictOptions } from '../../src/predict/engine';
import { judgePoint, metricsOf, requestsFor } from '../../src/predict/point';
import { concurrencyOf } from '../../src/predict/plan';
import type { Factors } from '../../src/predict/types';
import { REPO } from '../support/fixtures';

export const DEMO_PLAN = join(REPO, 'configs', 'examples', 'demo.plan.yaml');
export const VERSION = '0.20.1+autobench.sim';
/** Rates of each search, as fractions of the perturbed engine's capacity: passing below it, failing above. */
const RATES = [0.35, 0.7, 0.9, 0.97, 1.08, 1.3];

export interface SyntheticRun {
  dir: string;
  /** The hidden factors per candidate id. */
  truth: Map<string, Factors>;
}

/** Writes plan.yaml, rows.jsonl and (unless `manifest` is false) manifest.json into `dir`. */
export function writeSyntheticRun(dir: string, o: { fw?: FrameworkKey; seed?: number; manifest?: boolean } = {}): SyntheticRun {
  const fw = o.fw ?? 'vllm';
  const text = readFileSync(DEMO_PLAN, 'utf8');
  const plan = readRunPlan({ text, path: DEMO_PLAN });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plan.yaml'), text);
  const runId = 'synthetic-run-1';
  const truth = new Map<string, Factors>();
  const rows: unknown[] = [];
  for (const cand of plan.frameworks.find((f) => f.framework === fw)?.candidates ?? []) {
    const t = engineFor(fw, cand, predictOptions('H100', { perturb: o.seed ?? 4 }));
    if (!t.ok) throw new Error(`${cand.id}: ${t.reason}`);
    const p = t.config.perturbation;
    truth.set(cand.id, { prefill: p?.prefill ?? 1, decode: p?.decode ?? 1 });
    for (const sc of plan.scenarios) {
      const cap = predictCapacity(t.config, { scenario: sc, concurrency: concurrencyOf(plan), sla: plan.sla }).capacity;
      RATES.forEach((f, round) => {
        const rate = Number((cap * f).toPrecision(4));
        const { point, v, n, tooShort } = judgePoint(t.config, { scenario: sc, rate, concurrency: null }, plan.sla);
        const metrics = { ...metricsOf(v, Math.max(v.completed, requestsFor(rate))), success_rate: point.successRate };
        rows.push({
          run_id: runId,
          framework: fw,
          framework_version: VERSION,
          candidate_id: cand.id,
          candidate_name: cand.name,
          model: plan.model,
          status: tooShort ? 'failed' : 'ok',
          scenario: sc.name,
          hardware: { gpu_model: 'H100 (simulated)', gpu_count: 1 },
          workload: { scenario: sc.name, input_len: sc.inputLen, output_len: sc.outputLen, request_rate: rate, max_concurrency: null, num_prompts: n },
          server_command: cand.command,
          simulated: true,
          smoke: false,
          trial: { mode: 'search', rate, concurrency: null, round: round + 1 },
          metrics,
          sla: { ...plan.sla.limits, passed: point.passed, reasons: point.reasons },
        });
      });
    }
  }
  writeFileSync(join(dir, 'rows.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  if (o.manifest !== false) writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ run_id: runId, simulated: true, sim: { gpu: 'H100' }, frameworks: { [fw]: { status: 'run', version: { command: `${fw} --version`, version: VERSION } } } }, null, 2));
  return { dir, truth };
}
