// Pareto fronts over predicted operating points: throughput per GPU against per-user tokens/s and against p50 TTFT, per scenario.
import type { CandidatePrediction, ParetoPoint, ScenarioFront } from './types';

function pointsOf(scenario: string, cands: readonly CandidatePrediction[]): ParetoPoint[] {
  const out: ParetoPoint[] = [];
  for (const c of cands) {
    const s = c.scenarios.find((x) => x.scenario === scenario);
    if (!s || c.gpus <= 0) continue;
    for (const p of s.curve) {
      if (!p.passed || !(p.p50TpotMs > 0)) continue;
      out.push({ framework: c.framework, candidate: c.candidate, rate: p.rate, throughputPerGpu: p.outputThroughput / c.gpus, perUserTps: 1000 / p.p50TpotMs, p50TtftMs: p.p50TtftMs });
    }
  }
  return out;
}

/** Points no other point beats on both axes (`better(a, b)`: a is at least as good as b on that axis). */
function front(points: ParetoPoint[], better: (a: ParetoPoint, b: ParetoPoint) => boolean): ParetoPoint[] {
  const dominated = (p: ParetoPoint): boolean =>
    points.some((q) => q !== p && q.throughputPerGpu >= p.throughputPerGpu && better(q, p) && (q.throughputPerGpu > p.throughputPerGpu || !better(p, q)));
  return points.filter((p) => !dominated(p)).sort((a, b) => a.throughputPerGpu - b.throughputPerGpu);
}

export function frontsOf(scenarios: readonly string[], cands: readonly CandidatePrediction[]): ScenarioFront[] {
  return scenarios.map((scenario) => {
    const pts = pointsOf(scenario, cands);
    let leader: ScenarioFront['leader'];
    for (const c of cands) {
      const cap = c.scenarios.find((x) => x.scenario === scenario)?.capacity ?? 0;
      if (c.status === 'ok' && cap > 0 && (!leader || cap > leader.capacity)) leader = { framework: c.framework, candidate: c.candidate, capacity: cap };
    }
    return {
      scenario,
      byUserTps: front(pts, (a, b) => a.perUserTps >= b.perUserTps),
      byTtft: front(pts, (a, b) => a.p50TtftMs <= b.p50TtftMs),
      leader,
    };
  });
}
