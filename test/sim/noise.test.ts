// Launch-to-launch noise (--sim-noise, --sim-launch-salt): the per-launch step-cost factor is a pure function of
// (seed, salt) with sd about sigma across salts, steps get seeded jitter, and a server says which factor it drew.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SimClock } from '../../src/sim/clock';
import { resolveSim, type ResolvedSim } from '../../src/sim/config';
import { SimEngine } from '../../src/sim/engine';
import { StepJitter, clampedFactor, launchFactor, launchStream, requestFailure } from '../../src/sim/noise';
import { DEFAULT_SIM_OPTIONS, extractSimOptions, type SimOptions } from '../../src/sim/options';
import { parseFrameworkArgs } from '../../src/sim/serve';
import { withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

function meanSd(xs: number[]): { mean: number; sd: number } {
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, sd };
}

describe('launch factor', () => {
  test('the same (seed, salt) gives the same factor; another salt or seed another one', () => {
    assert.equal(launchFactor(7, 3, 0.05), launchFactor(7, 3, 0.05));
    assert.notEqual(launchFactor(7, 3, 0.05), launchFactor(7, 4, 0.05));
    assert.notEqual(launchFactor(7, 3, 0.05), launchFactor(8, 3, 0.05));
    assert.notEqual(launchStream(0, 1), launchStream(1, 0), 'seed and salt are not interchangeable');
  });

  test('sigma 0 is exactly the modelled cost, whatever the salt', () => {
    for (let salt = 0; salt < 50; salt++) assert.equal(launchFactor(1, salt, 0), 1);
  });

  test('over many salts the factor is centred on 1 with sd about sigma, clamped to 4 sd', () => {
    for (const sigma of [0.02, 0.1]) {
      const xs = Array.from({ length: 4000 }, (_, salt) => launchFactor(42, salt, sigma));
      const { mean, sd } = meanSd(xs);
      assert.ok(Math.abs(mean - 1) < 0.1 * sigma, `mean ${mean} for sigma ${sigma}`);
      assert.ok(Math.abs(sd / sigma - 1) < 0.08, `sd ${sd} for sigma ${sigma}`);
      assert.ok(Math.min(...xs) >= 1 - 4 * sigma && Math.max(...xs) <= 1 + 4 * sigma);
      assert.ok(new Set(xs).size > 3990, 'salts give distinct launches');
    }
    assert.equal(clampedFactor(10, 0.1), 1.4);
    assert.equal(clampedFactor(-10, 0.5), 0.05, 'a step never becomes free');
  });

  test('per-step jitter: a seeded sequence with sd about its own sigma', () => {
    const a = new StepJitter(launchStream(5, 1), 0.03);
    const b = new StepJitter(launchStream(5, 1), 0.03);
    const xs = Array.from({ length: 4000 }, () => a.next());
    assert.deepEqual(Array.from({ length: 4000 }, () => b.next()), xs, 'same stream, same steps');
    const { mean, sd } = meanSd(xs);
    assert.ok(Math.abs(mean - 1) < 0.005 && Math.abs(sd / 0.03 - 1) < 0.08, JSON.stringify({ mean, sd }));
    assert.notDeepEqual(Array.from({ length: 10 }, () => new StepJitter(launchStream(5, 2), 0.03).next()), xs.slice(0, 10));
  });

  test('error-rate picks: about the rate, half of each kind, one draw per request number', () => {
    const stream = launchStream(0, 0);
    const picks = Array.from({ length: 20_000 }, (_, i) => requestFailure(stream, i, 0.2));
    const fails = picks.filter(Boolean).length;
    const cuts = picks.filter((p) => p === 'cut').length;
    assert.ok(Math.abs(fails / picks.length - 0.2) < 0.015, String(fails));
    assert.ok(Math.abs(cuts / fails - 0.5) < 0.04, String(cuts));
    assert.equal(requestFailure(stream, 5, 0), undefined);
    assert.ok(Array.from({ length: 100 }, (_, i) => requestFailure(stream, i, 1)).every((p) => p !== undefined));
  });
});

describe('noise options and the engine', () => {
  test('--sim-noise, --sim-launch-salt, --sim-error-rate and --sim-fault parse, from AUTOBENCH_SIM_OPTS too', () => {
    const { options } = extractSimOptions(['--sim-noise', '0.05', '--sim-fault', 'short-output'], { AUTOBENCH_SIM_OPTS: '--sim-launch-salt 9 --sim-error-rate 0.25' });
    assert.deepEqual([options.noise, options.launchSalt, options.errorRate, options.fault], [0.05, 9, 0.25, 'short-output']);
    assert.equal(DEFAULT_SIM_OPTIONS.noise, 0);
    assert.equal(DEFAULT_SIM_OPTIONS.errorRate, 0);
    assert.throws(() => extractSimOptions(['--sim-error-rate', '1.5']), /--sim-error-rate: invalid value/);
    assert.throws(() => extractSimOptions(['--sim-noise', '-0.1']), /--sim-noise: invalid value/);
    assert.throws(() => extractSimOptions(['--sim-fault', 'slow']), /choose from zero-tokens, short-output/);
  });

  function resolve(sim: Partial<SimOptions>): ResolvedSim {
    const r = resolveSim('vllm', parseFrameworkArgs('vllm', [MODEL]) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, logIntervalMs: 0, speed: 1e6, ...sim });
    assert.ok(r.ok);
    return r.config;
  }

  /** Modelled GPU seconds one request keeps the engine busy: a fixed sequence of steps, whatever the machine. */
  function busySeconds(c: ResolvedSim): Promise<number> {
    const engine = new SimEngine(c.engine, new SimClock(c.options.speed));
    return new Promise((done, fail) => {
      const r = engine.submit({ promptIds: Array.from({ length: 300 }, (_, i) => i), maxNewTokens: 40, ignoreEos: true, varySample: false }, {
        tokens: (_f, _c, finish) => {
          if (finish) done(engine.stats().busySeconds);
        },
        failed: (m) => fail(new Error(m)),
      });
      if (!r.ok) fail(new Error(r.message));
    });
  }

  test('every step costs the launch factor times a jitter draw', async () => {
    const sigma = 0.1;
    const plain = await busySeconds(resolve({}));
    const noisy = resolve({ noise: sigma, launchSalt: 11 });
    assert.equal(noisy.launch.stepCostFactor, launchFactor(0, 11, sigma));
    assert.notEqual(noisy.launch.stepCostFactor, 1);
    const ratio = (await busySeconds(noisy)) / plain;
    // 41 steps of jitter with sd sigma/2 average out to well within 2 sd of their mean.
    const f = noisy.launch.stepCostFactor;
    assert.ok(Math.abs(ratio / f - 1) < 2 * (sigma / 2), JSON.stringify({ ratio, f }));
    assert.equal(await busySeconds(resolve({ noise: sigma, launchSalt: 11 })), await busySeconds(noisy), 'the same launch replays exactly');
  });

  test('a server reports its launch in /v1/models, /metrics and its startup log', async () => {
    const env = { AUTOBENCH_SIM_OPTS: '--sim-noise 0.08 --sim-launch-salt 3 --sim-seed 17' };
    const lines: string[] = [];
    const factors: number[] = [];
    for (let i = 0; i < 2; i++) {
      await withSim(
        'vllm',
        [MODEL],
        async (s) => {
          const body = (await (await fetch(`${s.url}/v1/models`)).json()) as { data: Array<{ simulation: Record<string, unknown> }> };
          const d = body.data[0]?.simulation ?? {};
          assert.equal(d.launch_salt, 3);
          assert.equal(d.noise_sigma, 0.08);
          factors.push(d.step_cost_factor as number);
          const metrics = await (await fetch(`${s.url}/metrics`)).text();
          assert.match(metrics, new RegExp(`^autobench_sim_step_cost_factor ${String(d.step_cost_factor).replace('.', '\\.')}$`, 'm'));
        },
        { env, log: (l) => lines.push(l) },
      );
    }
    assert.equal(factors[0], launchFactor(17, 3, 0.08));
    assert.equal(factors[1], factors[0], 'a relaunch with the same seed and salt draws the same factor');
    assert.ok(lines.some((l) => /launch salt 3, noise sigma 0\.08: step cost x/.test(l)), lines.join('\n'));
    await withSim('sglang', ['--model-path', MODEL, '--sim-noise', '0.08', '--sim-launch-salt', '4', '--sim-seed', '17'], async (s) => {
      const info = (await (await fetch(`${s.url}/server_info`)).json()) as { simulation: { step_cost_factor: number } };
      assert.equal(info.simulation.step_cost_factor, launchFactor(17, 4, 0.08));
      assert.notEqual(info.simulation.step_cost_factor, factors[0], 'another salt, another launch');
    });
  });
});
