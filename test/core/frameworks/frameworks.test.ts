// Built-in framework specs: every flag the upstream cookbooks use is known, spellings render right, and each
// table entry is backed by the captured --help of its framework.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseYaml } from '../../../src/core/config/yaml-doc';
import { isPyMap, pyStr } from '../../../src/core/py/value';
import type { PyValue } from '../../../src/core/py/value';
import { builtinFlag, flagOption, FRAMEWORK_SPECS, frameworkSpec, FRAMEWORKS } from '../../../src/core/frameworks';
import type { FrameworkKey } from '../../../src/core/frameworks';
import { versionFromFolder } from '../../../src/core/editor/snapshot-label';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
}

interface FlagUse {
  file: string;
  fw: FrameworkKey;
  key: string;
  value: PyValue;
}

/** Every base_server_flags / search_space entry of every framework section of a config. */
function flagUses(file: string): FlagUse[] {
  const parsed = parseYaml(readFileSync(file, 'utf8'));
  assert.deepEqual(parsed.problems, [], `${file} should parse`);
  const root = parsed.root?.value;
  assert.ok(isPyMap(root), `${file}: root mapping`);
  const frameworks = root.get('frameworks');
  assert.ok(isPyMap(frameworks), `${file}: frameworks mapping`);
  const uses: FlagUse[] = [];
  for (const [fw, section] of frameworks) {
    assert.ok(typeof fw === 'string' && FRAMEWORKS.includes(fw as FrameworkKey), `${file}: framework ${String(fw)}`);
    if (!isPyMap(section)) continue;
    for (const part of ['base_server_flags', 'search_space']) {
      const flags = section.get(part);
      if (!isPyMap(flags)) continue;
      for (const [key, value] of flags) uses.push({ file: path.basename(file), fw: fw as FrameworkKey, key: String(key), value });
    }
  }
  return uses;
}

const upstream = yamlFiles(path.join(FIXTURES, 'cookbook-upstream'));
const upstreamSglang = yamlFiles(path.join(FIXTURES, 'cookbook-upstream-sglang'));
const configFiles = [...upstream, ...upstreamSglang, path.join(FIXTURES, 'plans/example-plan.yaml')];
const allUses = configFiles.flatMap(flagUses);

// The newest captured help of each framework; every built-in flag must be an option there.
const LATEST_HELP: Record<FrameworkKey, string> = {
  sglang: 'help/sglang/main-2026-07-18-ece02ffc9/sglang_launch_server.txt',
  vllm: 'help/vllm/v0.20.1/vllm_serve_all.txt',
  tensorrt_llm: 'help/trtllm/main-serve.py-00209af1/trtllm_serve.txt',
  tokenspeed: 'help/tokenspeed/v0.1.0/tokenspeed_serve_engine_args.txt',
};

// Built-in flags the newest help does not list, each with the captured text that shows it is real.
const NOT_IN_LATEST_HELP: Record<FrameworkKey, Record<string, { evidence: string; option: string }>> = {
  // Removed after v0.5.4 in favour of moe_a2a_backend; kept so configs for older images validate.
  sglang: { enable_deepep_moe: { evidence: 'help/sglang/v0.5.4/sglang_launch_server.txt', option: '--enable-deepep-moe' } },
  vllm: {},
  tensorrt_llm: {},
  // `tokenspeed serve` hands these to its gateway, not the engine parser whose help was captured.
  tokenspeed: {
    chat_template: { evidence: 'help/tokenspeed/v0.1.0/SOURCE.md', option: '--chat-template' },
    tool_call_parser: { evidence: 'help/tokenspeed/v0.1.0/SOURCE.md', option: '--tool-call-parser' },
  },
};

function helpText(rel: string): string {
  return readFileSync(path.join(FIXTURES, rel), 'utf8');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `option` appears as a whole option string (not as the prefix of a longer one). */
function listsOption(text: string, option: string): boolean {
  return new RegExp(`(?:^|[\\s,\\[|\`])${escapeRe(option)}(?=[\\s,=\\]|\`]|$)`, 'm').test(text);
}

describe('built-in flag tables cover the upstream cookbooks', () => {
  test('all fixture configs were read', () => {
    assert.equal(upstream.length, 39);
    assert.ok(upstreamSglang.length > 0);
    for (const fw of FRAMEWORKS) assert.ok(allUses.some((u) => u.fw === fw), `no ${fw} flags found`);
  });

  test('every base_server_flags and search_space key is a known flag of its framework', () => {
    const missing = [...new Set(allUses.filter((u) => builtinFlag(u.fw, u.key) === undefined).map((u) => `${u.fw}.${u.key} (${u.file})`))];
    assert.deepEqual(missing, [], `flags missing from the built-in tables:\n${missing.join('\n')}`);
  });

  test('every value a fixture gives a choice flag is one of its choices', () => {
    const bad: string[] = [];
    for (const u of allUses) {
      const spec = builtinFlag(u.fw, u.key);
      if (spec?.kind !== 'choice') continue;
      const values = Array.isArray(u.value) ? u.value : [u.value];
      for (const v of values) {
        if (v === null || typeof v === 'boolean') continue;
        if (!spec.choices?.includes(pyStr(v))) bad.push(`${u.fw}.${u.key}=${pyStr(v)} (${u.file})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  test('a flag of one framework is not known to another', () => {
    assert.equal(builtinFlag('vllm', 'context_length'), undefined);
    assert.equal(builtinFlag('sglang', 'max_model_len'), undefined);
    assert.equal(builtinFlag('tensorrt_llm', 'gpu_memory_utilization'), undefined);
    assert.equal(builtinFlag('tokenspeed', 'mem_fraction_static'), undefined);
    assert.equal(builtinFlag('vllm', 'long_prefil_token_threshold'), undefined);
  });
});

describe('flag spelling', () => {
  test('flagOption renders dashes for sglang, vllm and tokenspeed and keeps TensorRT-LLM names verbatim', () => {
    assert.equal(flagOption('sglang', 'tp_size'), '--tp-size');
    assert.equal(flagOption('sglang', 'tensor_parallel_size'), '--tensor-parallel-size');
    assert.equal(flagOption('vllm', 'max_num_batched_tokens'), '--max-num-batched-tokens');
    assert.equal(flagOption('tokenspeed', 'max_model_len'), '--max-model-len');
    assert.equal(flagOption('tensorrt_llm', 'tp_size'), '--tp_size');
    assert.equal(flagOption('tensorrt_llm', 'kv_cache_free_gpu_memory_fraction'), '--kv_cache_free_gpu_memory_fraction');
  });

  test('aliases and either spelling find the same flag', () => {
    assert.equal(builtinFlag('sglang', 'tensor_parallel_size')?.key, 'tp_size');
    assert.equal(builtinFlag('sglang', 'tp-size')?.key, 'tp_size');
    assert.equal(builtinFlag('sglang', '--tensor-parallel-size')?.key, 'tp_size');
    assert.equal(builtinFlag('sglang', 'model')?.key, 'model_path');
    assert.equal(builtinFlag('tensorrt_llm', 'tensor_parallel_size')?.key, 'tp_size');
    assert.equal(builtinFlag('tensorrt_llm', 'free_gpu_memory_fraction')?.key, 'kv_cache_free_gpu_memory_fraction');
    assert.equal(builtinFlag('tensorrt_llm', 'moe_expert_parallel_size')?.key, 'ep_size');
    assert.equal(builtinFlag('tokenspeed', 'tp')?.key, 'tensor_parallel_size');
    assert.equal(builtinFlag('tokenspeed', 'ep_size')?.key, 'expert_parallel_size');
    assert.equal(builtinFlag('vllm', 'enable-prefix-caching')?.key, 'enable_prefix_caching');
  });

  test('no two flags of a framework share a name', () => {
    for (const fw of FRAMEWORKS) {
      const seen = new Map<string, string>();
      for (const flag of frameworkSpec(fw).builtinFlags) {
        for (const name of [flag.key, ...(flag.aliases ?? [])]) {
          const norm = name.replace(/-/g, '_');
          assert.equal(seen.get(norm), undefined, `${fw}: ${name} used by ${seen.get(norm)} and ${flag.key}`);
          seen.set(norm, flag.key);
        }
        assert.match(flag.key, /^[a-z0-9_]+$/, `${fw}: config keys are underscored`);
      }
    }
  });
});

describe('framework facts', () => {
  test('sequence limits, model position, style and commands', () => {
    const facts: Record<FrameworkKey, [string, 'dataset' | 0, boolean, 'dash' | 'verbatim', string]> = {
      sglang: ['context_length', 'dataset', false, 'dash', 'python -m sglang.launch_server'],
      vllm: ['max_model_len', 0, true, 'dash', 'vllm serve'],
      tensorrt_llm: ['max_seq_len', 0, true, 'verbatim', 'trtllm-serve serve'],
      tokenspeed: ['max_model_len', 0, false, 'dash', 'tokenspeed serve'],
    };
    for (const fw of FRAMEWORKS) {
      const s = FRAMEWORK_SPECS[fw];
      assert.equal(s.key, fw);
      assert.deepEqual([s.sequenceLimitKey, s.sequenceLimitDefault, s.positionalModel, s.flagStyle, s.defaultServerCommand], facts[fw]);
    }
  });

  test('memory knobs are the playbook ones and are in the tables', () => {
    assert.deepEqual(FRAMEWORK_SPECS.sglang.memoryKnobs, ['mem_fraction_static', 'schedule_policy']);
    assert.deepEqual(FRAMEWORK_SPECS.vllm.memoryKnobs, ['gpu_memory_utilization']);
    assert.deepEqual(FRAMEWORK_SPECS.tensorrt_llm.memoryKnobs, ['kv_cache_free_gpu_memory_fraction']);
    assert.deepEqual(FRAMEWORK_SPECS.tokenspeed.memoryKnobs, ['gpu_memory_utilization']);
    for (const fw of FRAMEWORKS) {
      for (const k of FRAMEWORK_SPECS[fw].memoryKnobs) assert.ok(builtinFlag(fw, k), `${fw}.${k}`);
    }
  });

  test('every key a spec names is in its own table', () => {
    for (const fw of FRAMEWORKS) {
      const s = FRAMEWORK_SPECS[fw];
      const named = [
        s.sequenceLimitKey,
        ...s.smokeOnlyFlags,
        ...s.advancedCommFlags,
        ...s.parallelKeys.tp,
        ...s.parallelKeys.pp,
        ...s.parallelKeys.dp,
        ...s.tokenizerKeys,
        // A positional model may have no option of its own (trtllm-serve has no --model).
        ...s.modelKeys.filter((k) => !(s.positionalModel && k === 'model')),
      ];
      for (const k of named) assert.ok(builtinFlag(fw, k), `${fw}: ${k} is named by the spec but not in the table`);
    }
  });

  test('smoke-only and advanced communication flags are the expected ones', () => {
    assert.ok(FRAMEWORK_SPECS.vllm.smokeOnlyFlags.includes('enforce_eager'));
    assert.ok(FRAMEWORK_SPECS.sglang.smokeOnlyFlags.includes('cuda_graph_backend_decode'));
    assert.ok(FRAMEWORK_SPECS.sglang.smokeOnlyFlags.includes('disable_cuda_graph'));
    assert.ok(FRAMEWORK_SPECS.vllm.advancedCommFlags.includes('enable_dbo'));
    assert.ok(FRAMEWORK_SPECS.vllm.advancedCommFlags.includes('all2all_backend'));
    assert.ok(FRAMEWORK_SPECS.sglang.advancedCommFlags.includes('enable_two_batch_overlap'));
    assert.ok(FRAMEWORK_SPECS.sglang.advancedCommFlags.includes('moe_a2a_backend'));
  });

  test('TensorRT-LLM backend is known with pytorch among its choices', () => {
    const backend = builtinFlag('tensorrt_llm', 'backend');
    assert.equal(backend?.kind, 'choice');
    assert.ok(backend?.choices?.includes('pytorch'));
  });
});

describe('flag metadata', () => {
  test('default-on flags carry an explicit disable form', () => {
    const on = FRAMEWORKS.flatMap((fw) => frameworkSpec(fw).builtinFlags.filter((f) => f.defaultOn).map((f) => ({ fw, f })));
    assert.ok(on.some(({ fw, f }) => fw === 'vllm' && f.key === 'enable_prefix_caching'));
    assert.ok(on.some(({ fw, f }) => fw === 'vllm' && f.key === 'enable_chunked_prefill'));
    for (const { fw, f } of on) {
      assert.equal(f.kind, 'bool', `${fw}.${f.key}`);
      assert.ok(f.disableForm?.startsWith('--'), `${fw}.${f.key} needs a disable form`);
    }
    assert.equal(builtinFlag('vllm', 'enable_prefix_caching')?.disableForm, '--no-enable-prefix-caching');
  });

  test('choice flags list their choices and other flags do not', () => {
    for (const fw of FRAMEWORKS) {
      for (const f of frameworkSpec(fw).builtinFlags) {
        if (f.kind === 'choice') assert.ok((f.choices?.length ?? 0) > 0, `${fw}.${f.key} has no choices`);
        else assert.equal(f.choices, undefined, `${fw}.${f.key} is ${f.kind} but lists choices`);
        assert.ok(f.help && f.help.length > 0, `${fw}.${f.key} has no description`);
      }
    }
  });

  test('tables are of a useful size', () => {
    for (const fw of FRAMEWORKS) {
      const n = frameworkSpec(fw).builtinFlags.length;
      assert.ok(n >= 30 && n <= 100, `${fw}: ${n} flags`);
    }
  });
});

describe('built-in tables agree with the captured help', () => {
  for (const fw of FRAMEWORKS) {
    test(`${fw}: each flag (or an alias) and each disable form is an option of the newest help`, () => {
      const text = helpText(LATEST_HELP[fw]);
      const allowed = NOT_IN_LATEST_HELP[fw];
      const absent: string[] = [];
      for (const f of frameworkSpec(fw).builtinFlags) {
        const options = [f.key, ...(f.aliases ?? [])].map((k) => flagOption(fw, k));
        const listed = options.some((o) => listsOption(text, o));
        const exception = allowed[f.key];
        if (exception) {
          assert.ok(!listed, `${fw}.${f.key} is listed now; drop it from the allow-list`);
          assert.ok(listsOption(helpText(exception.evidence), exception.option), `${fw}.${f.key}: evidence missing`);
          continue;
        }
        if (!listed) absent.push(f.key);
        if (f.disableForm) assert.ok(listsOption(text, f.disableForm), `${fw}.${f.key}: ${f.disableForm} not in help`);
      }
      assert.deepEqual(absent, [], `${fw}: built-in flags absent from ${LATEST_HELP[fw]}`);
    });
  }

  test('each table names the version it follows: the folder of the newest help it is checked against', () => {
    for (const fw of FRAMEWORKS) {
      const folder = LATEST_HELP[fw].split('/')[2] ?? '';
      // TensorRT-LLM's newest help is serve.py at a commit whose release is unknown: the table says main and that commit.
      const expected = fw === 'tensorrt_llm' ? `main @ ${folder.split('-').pop() ?? ''}` : versionFromFolder(folder);
      assert.equal(frameworkSpec(fw).builtinVersion, expected, fw);
    }
  });

  test('the option matcher does not accept a prefix of a longer option', () => {
    assert.ok(listsOption('  --tp-size TP_SIZE, --tensor-parallel-size TP_SIZE', '--tensor-parallel-size'));
    assert.ok(!listsOption('  --tp-size-extra X', '--tp-size'));
    assert.ok(listsOption('  --backend [pytorch|tensorrt]', '--backend'));
  });
});
