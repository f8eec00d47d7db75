// The simulated CLIs: help generated from our flag table parses back into the same table with src/core/help,
// flags parse and fail like argparse/click, and the shims in bin/sim behave like the real programs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { FRAMEWORK_SPECS } from '../../src/core/frameworks';
import type { FlagSpec, FrameworkKey } from '../../src/core/frameworks/types';
import { catalogToFlagSpecs, lookupFlag, parseHelp } from '../../src/core/help';
import { fullHelp, parseFrameworkArgs, simTargetFor, vllmSummaryHelp } from '../../src/sim';
import { CliParseError } from '../../src/sim/cli-args';
import { SIM_HELP, runSim } from '../../src/cli/sim';
import { runShimProcess } from '../support/sim';

const VALUE_KINDS = new Set(['int', 'float', 'path', 'string', 'json']);

/** The help text, parsed by the project's own help parser, names exactly the table's flags. */
function assertParsesBack(fw: FrameworkKey, text: string): void {
  const catalog = parseHelp(text);
  assert.equal(catalog.framework, fw, 'the usage line names the framework');
  assert.equal(catalog.groupedSummaryOnly, false);
  const parsed = catalogToFlagSpecs(catalog, fw);
  const table: readonly FlagSpec[] = FRAMEWORK_SPECS[fw].builtinFlags;
  assert.equal(parsed.length, table.length, 'one option per table entry');
  for (const want of table) {
    const got = lookupFlag(parsed, want.key, fw);
    assert.ok(got, `${fw}: ${want.key} is in the help`);
    assert.equal(got.key, want.key);
    assert.deepEqual([...(got.aliases ?? [])].sort(), [...(want.aliases ?? [])].sort(), `${want.key} aliases`);
    if (want.kind === 'bool' || want.kind === 'choice' || want.kind === 'list') assert.equal(got.kind, want.kind, `${want.key} kind`);
    else assert.ok(got.kind === want.kind || (VALUE_KINDS.has(want.kind) && got.kind === 'string'), `${want.key}: ${want.kind} read as ${got.kind}`);
    assert.deepEqual(got.choices, want.choices, `${want.key} choices`);
    assert.equal(got.disableForm, want.disableForm, `${want.key} disable form`);
    assert.equal(got.defaultOn === true, want.defaultOn === true, `${want.key} default on`);
    assert.equal(got.deprecated === true, want.deprecated === true, `${want.key} deprecated`);
    if (want.default !== undefined && fw === 'vllm') assert.equal(got.default, want.default, `${want.key} default`);
  }
}

describe('help texts from the flag table', () => {
  for (const [fw, inv] of [
    ['sglang', 'launch_server'],
    ['sglang', 'serve'],
    ['vllm', undefined],
    ['tensorrt_llm', undefined],
    ['tokenspeed', undefined],
  ] as const) {
    test(`${fw}${inv ? ` ${inv}` : ''}: full help parses back to the built-in table`, () => {
      const text = fullHelp(fw, inv);
      if (fw === 'tensorrt_llm') assert.match(text, /^Usage: trtllm-serve serve \[OPTIONS\] MODEL\n/);
      else assert.match(text, /^usage: /);
      assertParsesBack(fw, text);
    });
  }

  test("vLLM's plain --help is the grouped summary that points at --help=all", () => {
    const c = parseHelp(vllmSummaryHelp());
    assert.equal(c.framework, 'vllm');
    assert.equal(c.groupedSummaryOnly, true);
  });
});

describe('flag parsing like the real CLIs', () => {
  const fails = (fw: FrameworkKey, argv: string[], re: RegExp, inv?: string): void => {
    assert.throws(
      () => parseFrameworkArgs(fw, argv, inv),
      (e: unknown) => {
        assert.ok(e instanceof CliParseError);
        assert.equal(e.exitCode, 2);
        assert.match(e.text, re);
        return true;
      },
    );
  };

  test('argparse: values, --x=v, lists, negations, underscores (vLLM), abbreviations (SGLang)', () => {
    const v = parseFrameworkArgs('vllm', ['org/m', '--max_model_len=4096', '--served-model-name', 'a', 'b', '--no-enable-prefix-caching', '--gpu-memory-utilization', '0.8']);
    assert.equal(v.get('model'), 'org/m');
    assert.equal(v.get('max_model_len'), 4096);
    assert.deepEqual(v.get('served_model_name'), ['a', 'b']);
    assert.equal(v.get('enable_prefix_caching'), false);
    assert.equal(v.get('gpu_memory_utilization'), 0.8);
    const s = parseFrameworkArgs('sglang', ['--model-path', 'm', '--mem-frac', '0.7', '--tensor-parallel-size', '2'], 'launch_server');
    assert.equal(s.get('mem_fraction_static'), 0.7);
    assert.equal(s.get('tp_size'), 2);
  });

  test('argparse errors: usage line, prog: error: ..., exit 2', () => {
    fails('vllm', ['m', '--foo', '1'], /^usage: vllm serve \[model_tag\] \[options\]\nvllm serve: error: unrecognized arguments: --foo 1\n$/);
    fails('vllm', ['m', 'extra'], /error: unrecognized arguments: extra/);
    fails('vllm', ['--max-model-len', 'big'], /error: argument --max-model-len: invalid int value: 'big'/);
    fails('vllm', ['--dtype', 'int3'], /error: argument --dtype: invalid choice: 'int3' \(choose from 'auto', 'bfloat16'/);
    fails('vllm', ['--port'], /error: argument --port: expected one argument/);
    fails('vllm', ['--enforce-eager=yes'], /error: argument --enforce-eager: ignored explicit argument 'yes'/);
    fails('sglang', ['--tp-size', '2'], /launch_server\.py: error: the following arguments are required: --model-path\/--model/, 'launch_server');
    fails('sglang', ['--model-path', 'm', '--tokenizer', 'x'], /error: ambiguous option: --tokenizer could match --tokenizer-path, --tokenizer-mode/, 'launch_server');
    fails('tokenspeed', ['m', '--max-num', '4'], /tokenspeed serve: error: unrecognized arguments: --max-num 4/);
  });

  test('click errors (TensorRT-LLM): Usage, Try ... --help, Error: ..., exit 2', () => {
    fails('tensorrt_llm', ['m', '--foo'], /^Usage: trtllm-serve serve \[OPTIONS\] MODEL\nTry 'trtllm-serve serve --help' for help\.\n\nError: No such option: --foo\n$/);
    fails('tensorrt_llm', [], /Error: Missing argument 'MODEL'\./);
    fails('tensorrt_llm', ['m', '--max_batch_size', 'x'], /Error: Invalid value for '--max_batch_size': 'x' is not a valid integer\./);
    fails('tensorrt_llm', ['m', '--backend', 'onnx'], /Error: Invalid value for '--backend': 'onnx' is not one of 'pytorch', 'tensorrt', '_autodeploy', 'trt'\./);
    fails('tensorrt_llm', ['m', 'n'], /Error: Got unexpected extra argument \(n\)/);
    const ok = parseFrameworkArgs('tensorrt_llm', ['m', '--tensor_parallel_size', '4', '--trust_remote_code']);
    assert.equal(ok.get('tp_size'), 4);
    assert.equal(ok.get('trust_remote_code'), true);
  });
});

describe('candidate commands to simulator targets', () => {
  test('each framework command shape maps to its framework and server flags', () => {
    assert.deepEqual(simTargetFor(['python3', '-m', 'sglang.launch_server', '--model-path', 'm']), { framework: 'sglang', invocation: 'launch_server', args: ['--model-path', 'm'] });
    assert.deepEqual(simTargetFor(['/opt/venv/bin/vllm', 'serve', 'm', '--port', '1']), { framework: 'vllm', invocation: undefined, args: ['m', '--port', '1'] });
    assert.equal(simTargetFor(['trtllm-serve', 'serve', 'm'])?.framework, 'tensorrt_llm');
    assert.equal(simTargetFor(['ts', 'serve', 'm'])?.framework, 'tokenspeed');
    assert.equal(simTargetFor(['sglang', 'serve', '--model-path', 'm'])?.invocation, 'serve');
    assert.equal(simTargetFor(['vllm', 'bench', 'serve']), undefined);
    assert.equal(simTargetFor(['python', '-m', 'sglang.bench_serving']), undefined);
  });
});

describe('autobench sim', () => {
  const io = (): { out: NodeJS.WriteStream; err: NodeJS.WriteStream; text: () => string } => {
    let buf = '';
    const w = { write: (s: string) => ((buf += s), true) } as unknown as NodeJS.WriteStream;
    return { out: w, err: w, text: () => buf };
  };

  test('help, profiles, and a missing --framework', async () => {
    const a = io();
    assert.equal(await runSim(['--help'], a), 0);
    assert.equal(a.text(), `${SIM_HELP}\n`);
    for (const o of ['--sim-noise SIGMA', '--sim-launch-salt N', '--sim-error-rate F', '--sim-fault KIND', '--sim-no-cache-report']) assert.ok(a.text().includes(`  ${o} `), o);
    const b = io();
    assert.equal(await runSim(['profiles'], b), 0);
    assert.match(b.text(), /H200/);
    assert.match(b.text(), /deepseek-ai\/DeepSeek-V3/);
    const c = io();
    assert.equal(await runSim(['serve', 'x'], c), 2);
    assert.match(c.text(), /--framework must be one of/);
    const d = io();
    assert.equal(await runSim(['serve', '--framework', 'vllm', '--help=all'], d), 0);
    assertParsesBack('vllm', d.text());
    const e = io();
    assert.equal(await runSim(['serve', '--framework', 'trtllm', 'm', '--nope'], e), 2);
    assert.match(e.text(), /Error: No such option: --nope/);
  });
});

describe('shims in bin/sim', () => {
  test('vllm --version prints a real release string (the simulator shows itself in its log and owned_by)', async () => {
    const r = await runShimProcess('vllm', ['--version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  test('vllm serve --help=all parses back; plain --help is the summary', async () => {
    const all = await runShimProcess('vllm', ['serve', '--help=all']);
    assert.equal(all.code, 0);
    assertParsesBack('vllm', all.stdout);
    const plain = await runShimProcess('vllm', ['serve', '--help']);
    assert.equal(parseHelp(plain.stdout).groupedSummaryOnly, true);
  });

  test('unknown flags exit 2 with the CLI-style error', async () => {
    const v = await runShimProcess('vllm', ['serve', 'org/m', '--foo']);
    assert.equal(v.code, 2);
    assert.match(v.stderr, /^usage: vllm serve .*\nvllm serve: error: unrecognized arguments: --foo\n$/);
    const t = await runShimProcess('trtllm-serve', ['serve', 'org/m', '--foo', '1']);
    assert.equal(t.code, 2);
    assert.match(t.stderr, /Error: No such option: --foo/);
    const ts = await runShimProcess('ts', ['serve', 'org/m', '--foo']);
    assert.equal(ts.code, 2);
    assert.match(ts.stderr, /tokenspeed serve: error: unrecognized arguments: --foo/);
    const sub = await runShimProcess('vllm', ['chat']);
    assert.equal(sub.code, 2);
    assert.match(sub.stderr, /vllm: error: argument subparser: invalid choice: 'chat'/);
  });

  test('a flag value no server can start with exits 2 with one line from every shim, never a stack trace', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['vllm', ['serve', 'org/m', '--port', '99999'], /^autobench-sim: port 99999 is out of range: give --port 0-65535 \(0 picks a free port\)$/m],
      ['sglang', ['serve', '--model-path', 'org/m', '--port', '70000'], /port 70000 is out of range/],
      ['python', ['-m', 'sglang.launch_server', '--model-path', 'org/m', '--tp-size', '0'], /tensor parallel size 0 is not possible: give a whole number >= 1/],
      ['trtllm-serve', ['serve', 'org/m', '--tp_size', '0'], /tensor parallel size 0 is not possible/],
      ['tokenspeed', ['serve', 'org/m', '--data-parallel-size', '0'], /data parallel size 0 is not possible/],
      ['ts', ['serve', 'org/m', '--port', '-1'], /port -1 is out of range/],
    ];
    for (const [program, args, message] of cases) {
      const r = await runShimProcess(program, args);
      assert.equal(r.code, 2, `${program} ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+|internal error/, 'no stack trace');
    }
    const env = await runShimProcess('vllm', ['serve', 'org/m'], { env: { AUTOBENCH_SIM_OPTS: '--sim-error-rate 2' } });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /--sim-error-rate: invalid value '2' \(a number from 0 to 1\)/);
  });

  test('python -m sglang.launch_server --help, and the sglang serve form', async () => {
    const r = await runShimProcess('python', ['-m', 'sglang.launch_server', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^usage: launch_server\.py \[-h\] --model-path MODEL_PATH/);
    assertParsesBack('sglang', r.stdout);
    const s = await runShimProcess('sglang', ['serve', '--help']);
    assert.match(s.stdout, /^usage: sglang serve /);
  });

  test('python runs the real interpreter for anything else', { skip: !['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'].some((p) => existsSync(p)) }, async () => {
    const r = await runShimProcess('python', ['-c', 'print(6*7)']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), '42');
  });

  test('a served shim prints the ready line with its port, answers, and exits 0 on SIGTERM; it reads VLLM_SERVER_DEV_MODE', async () => {
    let models = '';
    let reset = 0;
    const r = await runShimProcess('vllm', ['serve', 'Qwen/Qwen3-0.6B', '--port', '0'], {
      env: { AUTOBENCH_SIM_OPTS: '--sim-speed 20 --sim-log-interval 0', VLLM_SERVER_DEV_MODE: '1' },
      // vLLM binds every interface by default (0.0.0.0), reached at loopback.
      until: /Uvicorn running on http:\/\/[\d.]+:(\d+)/,
      onMatch: async (out) => {
        const url = `http://127.0.0.1:${/Uvicorn running on http:\/\/[\d.]+:(\d+)/.exec(out)?.[1] ?? ''}`;
        models = await (await fetch(`${url}/v1/models`)).text();
        reset = (await fetch(`${url}/reset_prefix_cache`, { method: 'POST' })).status;
      },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /SIMULATED vLLM engine/);
    assert.match(r.stdout, /Development endpoints are enabled/);
    assert.match(models, /"owned_by":"autobench-sim"/);
    assert.equal(reset, 200);
  });

  test('an OOM-sized memory fraction exits 1 with an out-of-memory message', async () => {
    const r = await runShimProcess('python', ['-m', 'sglang.launch_server', '--model-path', 'meta-llama/Llama-3.1-8B-Instruct', '--mem-fraction-static', '0.995']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /torch\.OutOfMemoryError: CUDA out of memory/);
  });

  test('the crash flag ends the process with status 1 mid-run', async () => {
    const r = await runShimProcess('trtllm-serve', ['serve', 'Qwen/Qwen3-0.6B', '--port', '0', '--sim-crash-after-requests', '1'], {
      until: /Uvicorn running on (http:\/\/127\.0\.0\.1:\d+)/,
      onMatch: async (out) => {
        const url = /Uvicorn running on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? '';
        await fetch(`${url}/v1/completions`, { method: 'POST', body: JSON.stringify({ prompt: 'x', max_tokens: 1000, ignore_eos: true, stream: true }) })
          .then((res) => res.text())
          .catch(() => undefined);
      },
      keepAlive: true,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /illegal memory access/);
  });
});
