// The hidden efficiency perturbation (--sim-perturb SEED): seeded per-framework and per-flag-value factors on
// compute and bandwidth, the same for every spelling of a value, deaf to names and addresses, applied exactly to
// the cost model, never printed, and passed on by `autobench run --sim-perturb`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../src/cli/errors';
import { optionsFrom } from '../../src/cli/run-args';
import { resolveSim, type ResolvedSim } from '../../src/sim/config';
import { DEFAULT_SIM_OPTIONS, SIM_OPTIONS_HELP, SimOptionError, extractSimOptions, type SimOptions } from '../../src/sim/options';
import { canonicalValue, givenFlags, perturbFactors, type PerturbFactors } from '../../src/sim/perturb';
import { parseFrameworkArgs } from '../../src/sim/serve';
import { withSim } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const VLLM_ARGS = [MODEL, '--max-num-seqs', '128', '--enforce-eager', '--kv-cache-dtype', 'fp8', '--max-num-batched-tokens', '4096'];

function vllm(args: readonly string[]): Map<string, unknown> {
  return parseFrameworkArgs('vllm', args);
}

function product(p: PerturbFactors, part: 'prefill' | 'decode'): number {
  return p.parts.reduce((a, x) => a * x[part], 1);
}

describe('perturbFactors', () => {
  test('deterministic per seed; another seed, another draw', () => {
    const values = vllm(VLLM_ARGS);
    const a = perturbFactors('vllm', values, 7);
    assert.deepEqual(perturbFactors('vllm', vllm(VLLM_ARGS), 7), a);
    const b = perturbFactors('vllm', values, 8);
    assert.notEqual(b.prefill, a.prefill);
    assert.notEqual(b.decode, a.decode);
    assert.notEqual(a.prefill, a.decode, 'prefill and decode are drawn apart');
    assert.notEqual(perturbFactors('sglang', new Map(), 7).prefill, perturbFactors('vllm', new Map(), 7).prefill, 'each framework its own factor');
  });

  test('one pair for the framework and one per given flag, each in [0.75, 1.25]; the product clamped to [0.5, 2]', () => {
    const values = vllm([...VLLM_ARGS, '--block-size', '32', '--max-model-len', '8192', '--gpu-memory-utilization', '0.85', '--no-enable-prefix-caching', '--stream-interval', '4']);
    let clamped = 0;
    for (let seed = 0; seed < 400; seed++) {
      const p = perturbFactors('vllm', values, seed);
      assert.deepEqual(p.parts[0] && [p.parts[0].flag, p.parts[0].value], ['', '']);
      assert.equal(p.parts.length, 1 + 10);
      for (const x of p.parts) for (const f of [x.prefill, x.decode]) assert.ok(f >= 0.75 && f <= 1.25, `${x.flag}=${x.value}: ${f}`);
      for (const part of ['prefill', 'decode'] as const) {
        const raw = product(p, part);
        assert.equal(p[part], Math.min(2, Math.max(0.5, raw)));
        if (raw < 0.5 || raw > 2) clamped++;
      }
    }
    assert.ok(clamped > 0, 'eleven factors of 0.75..1.25 sometimes multiply past the clamp');
  });

  test('the factors spread over [0.75, 1.25]', () => {
    const xs = Array.from({ length: 2000 }, (_, seed) => perturbFactors('sglang', new Map(), seed).prefill);
    assert.ok(Math.min(...xs) < 0.76 && Math.max(...xs) > 1.24, `${Math.min(...xs)}..${Math.max(...xs)}`);
    const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
    assert.ok(Math.abs(mean - 1) < 0.01, String(mean));
  });

  test('host, port, served model name and API key change nothing', () => {
    const plain = perturbFactors('vllm', vllm(VLLM_ARGS), 3);
    const named = vllm([...VLLM_ARGS, '--host', '0.0.0.0', '--port', '9001', '--served-model-name', 'x', 'y', '--api-key', 'secret']);
    assert.deepEqual(perturbFactors('vllm', named, 3), plain);
    const sglang = (extra: string[]): PerturbFactors => perturbFactors('sglang', parseFrameworkArgs('sglang', ['--model-path', MODEL, ...extra]), 3);
    assert.deepEqual(sglang(['--host', '::', '--port', '30001', '--served-model-name', 'z', '--api-key', 'k']), sglang([]));
  });

  test('a value spelled differently gets the same factor', () => {
    const p = (values: Map<string, unknown>): PerturbFactors => perturbFactors('vllm', values, 11);
    const base = p(new Map<string, unknown>([['max_num_seqs', 128], ['enforce_eager', true]]));
    assert.deepEqual(p(new Map<string, unknown>([['max_num_seqs', '128'], ['enforce_eager', 'true']])), base);
    assert.deepEqual(p(new Map<string, unknown>([['enforce_eager', true], ['max_num_seqs', ' 128 ']])), base, 'order and spaces do not matter');
    assert.deepEqual(p(vllm(['--max_num_seqs=128', '--enforce-eager'])), base, 'as the command line writes it');
    assert.deepEqual(base.parts.slice(1).map((x) => `${x.flag}=${x.value}`), ['enforce_eager=true', 'max_num_seqs=128']);
    assert.notDeepEqual(p(new Map([['max_num_seqs', 256]])).parts[1], base.parts[2], 'another value, another factor');
    const sg = (k: string): PerturbFactors => perturbFactors('sglang', new Map([[k, '2']]), 11);
    assert.deepEqual(sg('tensor_parallel_size'), sg('tp_size'), 'an alias is its flag');
    assert.equal(canonicalValue(['8', '16']), '8 16');
    assert.equal(canonicalValue(['fp8']), canonicalValue('fp8'), 'a one-item list reads as its item');
    assert.equal(canonicalValue('{"b": 1, "a": [2]}', { key: 'c', kind: 'json' }), '{"a":[2],"b":1}');
  });

  test('only given flags count: defaults and false-as-absent flags are no flags', () => {
    const plain = perturbFactors('vllm', vllm([MODEL]), 5);
    assert.equal(plain.parts.length, 2, 'framework + model');
    assert.deepEqual(perturbFactors('vllm', vllm([MODEL, '--tensor-parallel-size', '1', '--enable-prefix-caching']), 5), plain, 'given at their defaults');
    assert.deepEqual(perturbFactors('vllm', new Map<string, unknown>([['model', MODEL], ['enforce_eager', false], ['seed', undefined], ['x', null]]), 5), plain);
    const off = perturbFactors('vllm', vllm([MODEL, '--no-enable-prefix-caching']), 5);
    assert.deepEqual(givenFlags('vllm', vllm([MODEL, '--no-enable-prefix-caching'])).map((x) => `${x.flag}=${x.value}`), [`enable_prefix_caching=false`, `model=${MODEL}`]);
    assert.notEqual(off.prefill, plain.prefill, 'turning a default-on flag off counts');
  });
});

describe('--sim-perturb in the simulator', () => {
  function resolve(args: readonly string[], sim: Partial<SimOptions>): ResolvedSim {
    const r = resolveSim('vllm', vllm(args) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, ...sim });
    assert.ok(r.ok);
    return r.config;
  }

  test('resolveSim multiplies flops by prefill and bandwidth by decode, exactly; without it nothing changes', () => {
    const plain = resolve(VLLM_ARGS, {});
    assert.equal(plain.perturbation, undefined);
    assert.ok(!('perturbation' in plain));
    assert.deepEqual(resolve(VLLM_ARGS, {}).engine.cost, plain.engine.cost);
    const perturbed = resolve(VLLM_ARGS, { perturb: 7 });
    const p = perturbFactors('vllm', vllm(VLLM_ARGS), 7);
    assert.deepEqual(perturbed.perturbation, p);
    assert.equal(perturbed.engine.cost.flops, plain.engine.cost.flops * p.prefill);
    assert.equal(perturbed.engine.cost.bandwidth, plain.engine.cost.bandwidth * p.decode);
    assert.deepEqual({ ...perturbed.engine.cost, flops: 0, attnFlops: 0, moeFlops: 0, bandwidth: 0 }, { ...plain.engine.cost, flops: 0, attnFlops: 0, moeFlops: 0, bandwidth: 0 }, 'nothing else moves');
    assert.equal(perturbed.kvTokens, plain.kvTokens);
    assert.notEqual(resolve(VLLM_ARGS, { perturb: 0 }).engine.cost.flops, plain.engine.cost.flops, 'seed 0 is a perturbation too');
  });

  test('--sim-perturb parses from the command line and AUTOBENCH_SIM_OPTS; a bad value is a SimOptionError', () => {
    assert.equal(DEFAULT_SIM_OPTIONS.perturb, undefined);
    assert.equal(extractSimOptions([MODEL]).options.perturb, undefined);
    const { rest, options } = extractSimOptions([MODEL, '--sim-perturb', '7']);
    assert.deepEqual([rest, options.perturb], [[MODEL], 7]);
    assert.equal(extractSimOptions([MODEL], { AUTOBENCH_SIM_OPTS: '--sim-seed 2 --sim-perturb=42' }).options.perturb, 42);
    assert.equal(extractSimOptions(['--sim-perturb', '9'], { AUTOBENCH_SIM_OPTS: '--sim-perturb 42' }).options.perturb, 9, 'the command line wins');
    for (const bad of ['1.5', 'abc', '-1', '']) {
      assert.throws(
        () => extractSimOptions(['--sim-perturb', bad]),
        (e: unknown) => e instanceof SimOptionError && e.message.includes(`--sim-perturb: invalid value '${bad}' (a whole number from 0`),
        bad,
      );
    }
    assert.throws(() => extractSimOptions(['--sim-perturb']), /--sim-perturb needs a value/);
    assert.match(SIM_OPTIONS_HELP, /--sim-perturb SEED/);
  });

  test('a server says the seed in its log, never the factors', async () => {
    const lines: string[] = [];
    await withSim(
      'vllm',
      [...VLLM_ARGS, '--sim-perturb', '7'],
      async (s) => {
        const p = s.config.perturbation;
        assert.ok(p);
        const models = await (await fetch(`${s.url}/v1/models`)).text();
        const metrics = await (await fetch(`${s.url}/metrics`)).text();
        for (const f of [p.prefill, p.decode, ...p.parts.flatMap((x) => [x.prefill, x.decode])]) {
          const shown = f.toFixed(3);
          assert.ok(!lines.some((l) => l.includes(shown)) && !models.includes(shown) && !metrics.includes(shown), `factor ${shown} leaked`);
        }
      },
      { log: (l) => lines.push(l) },
    );
    assert.ok(lines.some((l) => l.endsWith('autobench-sim: efficiency perturbation seed 7 (hidden factors)')), lines.join('\n'));
  });
});

describe('autobench run --sim-perturb', () => {
  test('reaches every simulated server through the extra --sim-* options', () => {
    assert.equal(optionsFrom({ 'sim-perturb': '7' }, 'plan.yaml').simExtraOptions, '--sim-perturb 7');
    const both = optionsFrom({ 'sim-perturb': '7', 'sim-opts': ' --sim-noise 0.03 ' }, 'plan.yaml').simExtraOptions;
    assert.equal(both, '--sim-noise 0.03 --sim-perturb 7');
    assert.equal(extractSimOptions([], { AUTOBENCH_SIM_OPTS: both }).options.perturb, 7);
    assert.equal(optionsFrom({}, 'plan.yaml').simExtraOptions, undefined);
    for (const bad of ['7.5', 'x', '-2', '4294967296']) assert.throws(() => optionsFrom({ 'sim-perturb': bad }, 'plan.yaml'), UsageError, bad);
  });
});
