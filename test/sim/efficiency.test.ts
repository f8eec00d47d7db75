// Known efficiency factors (--sim-efficiency SPEC): the SPEC read term by term with one-line errors, terms matched
// by framework or by a flag value the command line gives (any spelling), matching terms multiplied, applied to the
// cost model on top of --sim-perturb, and a faster engine measurably faster on the virtual clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import { resolveSim, type ResolvedSim } from '../../src/sim/config';
import { EFFICIENCY_FORM, EfficiencyError, efficiencyFactor, parseEfficiency, termMatches } from '../../src/sim/efficiency';
import { DEFAULT_SIM_OPTIONS, SIM_OPTIONS_HELP, SimOptionError, extractSimOptions, type SimOptions } from '../../src/sim/options';
import { perturbFactors } from '../../src/sim/perturb';
import { parseFrameworkArgs } from '../../src/sim/serve';
import { simulateLoad } from '../../src/sim/virtual';
import { withSim } from '../support/sim';

const MODEL = 'Qwen/Qwen3-8B';

function vllm(args: readonly string[]): Map<string, unknown> {
  return parseFrameworkArgs('vllm', [MODEL, ...args]);
}

function sglang(args: readonly string[]): Map<string, unknown> {
  return parseFrameworkArgs('sglang', ['--model-path', MODEL, ...args], 'launch_server');
}

function factor(spec: string, fw: FrameworkKey, values: Map<string, unknown>): number {
  return efficiencyFactor(fw, values, parseEfficiency(spec));
}

describe('parseEfficiency', () => {
  test('framework terms and flag=value terms, in order; flags by table key, values canonical', () => {
    assert.deepEqual(parseEfficiency('vllm.max_num_seqs=256:1.07,sglang:0.95'), [
      { framework: 'vllm', flag: 'max_num_seqs', value: '256', factor: 1.07, text: 'vllm.max_num_seqs=256:1.07' },
      { framework: 'sglang', factor: 0.95, text: 'sglang:0.95' },
    ]);
    const [dash] = parseEfficiency(' vllm.max-num-seqs=0256 : 2 ');
    assert.deepEqual(dash && [dash.flag, dash.value, dash.factor], ['max_num_seqs', '256', 2], 'dash spelling, spaces, 0256 as 256');
    assert.equal(parseEfficiency('sglang.tensor_parallel_size=2:1.1')[0]?.flag, 'tp_size', 'an alias is its flag');
    assert.equal(parseEfficiency('vllm.enforce_eager=True:1.1')[0]?.value, 'true');
    assert.equal(parseEfficiency('tensorrt-llm:0.9')[0]?.framework, 'tensorrt_llm');
    assert.equal(parseEfficiency('tokenspeed.gpu_memory_utilization=0.90:5')[0]?.value, '0.9');
    assert.deepEqual(parseEfficiency('tensorrt_llm:0.2').map((t) => t.factor), [0.2], 'the bounds are allowed');
  });

  test('a bad SPEC: one line naming the bad term, why, and the expected form', () => {
    const bad: Array<[string, string, string]> = [
      ['vllm', 'vllm', 'no :FACTOR'],
      ['vllm:fast', 'vllm:fast', "factor 'fast' is not a number"],
      ['vllm:', 'vllm:', "factor '' is not a number"],
      ['vllm:0.1', 'vllm:0.1', 'factor 0.1 is outside 0.2..5'],
      ['sglang:1.1,vllm:6', 'vllm:6', 'factor 6 is outside 0.2..5'],
      ['vlm:1.1', 'vlm:1.1', "unknown framework 'vlm'"],
      ['vllm.max_num_seqs:1.1', 'vllm.max_num_seqs:1.1', 'a flag needs =VALUE'],
      ['vllm.max_num_seq=8:1.1', 'vllm.max_num_seq=8:1.1', "vllm has no flag 'max_num_seq'"],
      ['vllm.=8:1.1', 'vllm.=8:1.1', "vllm has no flag ''"],
      ['vllm.max_num_seqs=:1.1', 'vllm.max_num_seqs=:1.1', 'no value for max_num_seqs'],
      ['vllm:1.1,', '', 'no :FACTOR'],
    ];
    for (const [spec, term, why] of bad) {
      assert.throws(
        () => parseEfficiency(spec),
        (e: unknown) => e instanceof EfficiencyError && e.message === `bad term '${term}': ${why}; expected ${EFFICIENCY_FORM}`,
        spec,
      );
    }
    assert.throws(() => parseEfficiency('  '), (e: unknown) => e instanceof EfficiencyError && e.message === `empty SPEC; expected ${EFFICIENCY_FORM}`);
    assert.ok(!EFFICIENCY_FORM.includes('\n'));
  });
});

describe('matching', () => {
  test('a framework term matches every server of that framework and no other', () => {
    const [t] = parseEfficiency('vllm:1.2');
    assert.ok(t);
    assert.ok(termMatches(t, 'vllm', vllm([])));
    assert.ok(termMatches(t, 'vllm', vllm(['--max-num-seqs', '8', '--enforce-eager'])));
    assert.ok(!termMatches(t, 'sglang', sglang([])));
    assert.equal(factor('vllm:1.2', 'sglang', sglang([])), 1);
  });

  test('a flag=value term matches the servers whose command line gives that value, however spelled', () => {
    const spec = 'vllm.max_num_seqs=256:1.07';
    assert.equal(factor(spec, 'vllm', vllm(['--max-num-seqs', '256'])), 1.07);
    assert.equal(factor(spec, 'vllm', vllm(['--max_num_seqs=256'])), 1.07);
    assert.equal(factor('vllm.max-num-seqs=256:1.07', 'vllm', vllm(['--max-num-seqs', '256'])), 1.07, 'dash spelling in SPEC');
    assert.equal(factor(spec, 'vllm', new Map<string, unknown>([['max_num_seqs', '256']])), 1.07, 'a string value');
    assert.equal(factor(spec, 'vllm', vllm(['--max-num-seqs', '128'])), 1, 'another value');
    assert.equal(factor(spec, 'vllm', vllm([])), 1, 'not given');
    assert.equal(factor('sglang.tp_size=1:1.07', 'vllm', vllm(['--tensor-parallel-size', '1'])), 1, 'another framework');
    assert.equal(factor('sglang.tp_size=2:1.3', 'sglang', sglang(['--tensor-parallel-size', '2'])), 1.3, 'an alias on the command line');
    assert.equal(factor('vllm.enable_prefix_caching=false:0.8', 'vllm', vllm(['--no-enable-prefix-caching'])), 0.8, 'a bool turned off');
    assert.equal(factor('vllm.enable_prefix_caching=true:0.8', 'vllm', vllm(['--enable-prefix-caching'])), 0.8, 'given at its default still counts');
  });

  test('every matching term multiplies', () => {
    const values = vllm(['--max-num-seqs', '64', '--enforce-eager']);
    assert.equal(factor('vllm:1.25,vllm.max_num_seqs=64:2,vllm.enforce_eager=true:0.5,sglang:3', 'vllm', values), 1.25 * 2 * 0.5);
    assert.equal(factor('vllm:1.1,vllm:1.1', 'vllm', values), 1.1 * 1.1, 'a term twice counts twice');
    assert.equal(factor('vllm.max_num_seqs=8:2', 'vllm', values), 1);
  });
});

describe('--sim-efficiency in the simulator options', () => {
  test('parses from the command line and AUTOBENCH_SIM_OPTS, the command line winning', () => {
    assert.equal(DEFAULT_SIM_OPTIONS.efficiency, undefined);
    const { rest, options } = extractSimOptions([MODEL, '--sim-efficiency', 'vllm:1.2', '--max-num-seqs', '8']);
    assert.deepEqual(rest, [MODEL, '--max-num-seqs', '8']);
    assert.deepEqual(options.efficiency, parseEfficiency('vllm:1.2'));
    assert.deepEqual(extractSimOptions([], { AUTOBENCH_SIM_OPTS: "--sim-efficiency='sglang:0.9,vllm:1.1'" }).options.efficiency, parseEfficiency('sglang:0.9,vllm:1.1'));
    assert.deepEqual(extractSimOptions(['--sim-efficiency=vllm:2'], { AUTOBENCH_SIM_OPTS: '--sim-efficiency vllm:3' }).options.efficiency, parseEfficiency('vllm:2'));
    assert.match(SIM_OPTIONS_HELP, /^ {2}--sim-efficiency SPEC {5}\S/m);
  });

  test('a bad SPEC is a SimOptionError naming the option, the term and the form, on one line', () => {
    for (const [argv, env] of [[['--sim-efficiency', 'vllm:9'], {}], [[], { AUTOBENCH_SIM_OPTS: '--sim-efficiency vllm:9' }]] as const) {
      assert.throws(
        () => extractSimOptions(argv, env),
        (e: unknown) => e instanceof SimOptionError && e.message === `--sim-efficiency: bad term 'vllm:9': factor 9 is outside 0.2..5; expected ${EFFICIENCY_FORM}`,
      );
    }
    assert.throws(() => extractSimOptions(['--sim-efficiency']), /--sim-efficiency needs a value/);
  });

  test('a served engine carries the factor; a bad SPEC stops it with the one line', async () => {
    await withSim('vllm', [MODEL, '--max-num-seqs', '8', '--sim-efficiency', 'vllm:1.2,vllm.max_num_seqs=8:1.5,sglang:3'], (s) => Promise.resolve(assert.equal(s.config.efficiency, 1.2 * 1.5)));
    await withSim('vllm', [MODEL], (s) => Promise.resolve(assert.equal(s.config.efficiency, 1.5)), { env: { AUTOBENCH_SIM_OPTS: '--sim-efficiency vllm:1.5' } });
    await assert.rejects(
      withSim('vllm', [MODEL, '--sim-efficiency', 'vllm.nope=1:1.2'], () => Promise.resolve()),
      (e: unknown) => (e as { lines?: string[] }).lines?.join('\n') === `autobench-sim: --sim-efficiency: bad term 'vllm.nope=1:1.2': vllm has no flag 'nope'; expected ${EFFICIENCY_FORM}`,
    );
  });
});

function resolve(args: readonly string[], sim: Partial<SimOptions>): ResolvedSim {
  const r = resolveSim('vllm', vllm(args) as Map<string, never>, { ...DEFAULT_SIM_OPTIONS, gpu: 'H100', ...sim });
  assert.ok(r.ok, r.ok ? '' : r.lines.join('\n'));
  return r.config;
}

describe('--sim-efficiency on the engine', () => {
  const ARGS = ['--max-num-seqs', '64'];

  test('resolveSim multiplies compute speed and memory bandwidth by the factor, on top of --sim-perturb', () => {
    const plain = resolve(ARGS, {});
    assert.ok(!('efficiency' in plain));
    const fast = resolve(ARGS, { efficiency: parseEfficiency('vllm:1.2') });
    assert.equal(fast.efficiency, 1.2);
    assert.equal(fast.engine.cost.flops, plain.engine.cost.flops * 1.2);
    assert.equal(fast.engine.cost.bandwidth, plain.engine.cost.bandwidth * 1.2);
    assert.deepEqual({ ...fast.engine.cost, flops: 0, attnFlops: 0, moeFlops: 0, bandwidth: 0 }, { ...plain.engine.cost, flops: 0, attnFlops: 0, moeFlops: 0, bandwidth: 0 }, 'nothing else moves');
    assert.equal(fast.kvTokens, plain.kvTokens);
    const unmatched = resolve(ARGS, { efficiency: parseEfficiency('sglang:2') });
    assert.equal(unmatched.efficiency, 1);
    assert.deepEqual(unmatched.engine.cost, plain.engine.cost);
    const p = perturbFactors('vllm', vllm(ARGS), 7);
    const both = resolve(ARGS, { perturb: 7, efficiency: parseEfficiency('vllm:1.2') });
    assert.deepEqual(both.perturbation, p);
    assert.equal(both.engine.cost.flops, plain.engine.cost.flops * p.prefill * 1.2);
    assert.equal(both.engine.cost.bandwidth, plain.engine.cost.bandwidth * p.decode * 1.2);
  });

  test('on the virtual clock a factor of 1.2 gives higher throughput and lower latency than 1.0', () => {
    const load = { inputLen: 256, outputLen: 256, requests: 64, warmup: 4, seed: 3 };
    const base = resolve(ARGS, { efficiency: parseEfficiency('vllm:1.0') });
    const fast = resolve(ARGS, { efficiency: parseEfficiency('vllm.max_num_seqs=64:1.2') });
    const saturated = (c: ResolvedSim): ReturnType<typeof simulateLoad> => simulateLoad(c, { ...load, rate: Infinity, concurrency: null });
    const ratio = saturated(fast).outputThroughput / saturated(base).outputThroughput;
    // Decode-bound: the fixed per-step overheads the factor does not scale keep the gain a little under 1.2.
    assert.ok(ratio > 1.1 && ratio <= 1.2 + 1e-9, `throughput x${ratio}`);
    const light = (c: ResolvedSim): ReturnType<typeof simulateLoad> => simulateLoad(c, { ...load, rate: 2, concurrency: null });
    const [b, f] = [light(base), light(fast)];
    assert.ok(f.tpotMs.p50 < b.tpotMs.p50 / 1.1, `TPOT ${f.tpotMs.p50} vs ${b.tpotMs.p50}`);
    assert.ok(f.ttftMs.p50 < b.ttftMs.p50, `TTFT ${f.ttftMs.p50} vs ${b.ttftMs.p50}`);
    assert.ok(f.e2eMs.p50 < b.e2eMs.p50 / 1.1, `E2E ${f.e2eMs.p50} vs ${b.e2eMs.p50}`);
  });
});
