// Help-snapshot parsing: option counts against every fixture's SOURCE.md, flag facts, classification, robustness.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { HELP } from '../../support/fixtures';
import {
  catalogToFlagSpecs,
  classifySnapshotFile,
  discoverSnapshots,
  loadServerCatalogs,
  lookupFlag,
  parseHelp,
} from '../../../src/core/help';
import type { FlagCatalog, HelpOption } from '../../../src/core/help';

function parseFixture(rel: string): FlagCatalog {
  return parseHelp(readFileSync(path.join(HELP, rel), 'utf8'), { fileName: path.basename(rel) });
}

function option(cat: FlagCatalog, name: string): HelpOption {
  const o = cat.options.find((x) => x.names.includes(name) || x.negations.includes(name));
  assert.ok(o, `${name} not found`);
  return o;
}

interface CountRow {
  dir: string;
  file: string;
  flags: number;
}

function sourceRows(): CountRow[] {
  const rows: CountRow[] = [];
  for (const fw of readdirSync(HELP).sort()) {
    for (const ver of readdirSync(path.join(HELP, fw)).sort()) {
      const dir = path.join(HELP, fw, ver);
      const md = readFileSync(path.join(dir, 'SOURCE.md'), 'utf8');
      for (const m of md.matchAll(/^\| `([^`]+)` \|.*\| (\d+) \|\s*$/gm)) {
        if (m[1] && m[2]) rows.push({ dir, file: m[1], flags: Number(m[2]) });
      }
    }
  }
  return rows;
}

describe('option counts match every SOURCE.md table', () => {
  const rows = sourceRows();

  test('every stored help text has a row (89 texts in 42 folders)', () => {
    const texts: string[] = [];
    for (const fw of readdirSync(HELP)) {
      for (const ver of readdirSync(path.join(HELP, fw))) {
        for (const f of readdirSync(path.join(HELP, fw, ver))) if (f.endsWith('.txt')) texts.push(path.join(HELP, fw, ver, f));
      }
    }
    assert.equal(texts.length, 89);
    assert.deepEqual(rows.map((r) => path.join(r.dir, r.file)).sort(), texts.sort());
  });

  for (const row of rows) {
    test(`${path.relative(HELP, row.dir)}/${row.file}: ${row.flags}`, () => {
      const cat = parseHelp(readFileSync(path.join(row.dir, row.file), 'utf8'), { fileName: row.file });
      assert.equal(cat.optionStrings.length, row.flags);
      assert.ok(!cat.optionStrings.includes('--help'));
      assert.ok(cat.optionStrings.every((s) => s.startsWith('--')));
    });
  }
});

describe('argparse texts', () => {
  test('vLLM v0.20.1 --help=all: max-model-len and the prefix-caching pair', () => {
    const cat = parseFixture('vllm/v0.20.1/vllm_serve_all.txt');
    assert.equal(cat.framework, 'vllm');
    assert.equal(cat.role, 'server');
    assert.equal(cat.prog, 'vllm serve');
    assert.equal(cat.groupedSummaryOnly, false);
    const mml = option(cat, '--max-model-len');
    assert.equal(mml.takesValue, true);
    assert.equal(mml.group, 'ModelConfig');
    const pc = option(cat, '--enable-prefix-caching');
    assert.deepEqual(pc.negations, ['--no-enable-prefix-caching']);
    assert.equal(pc.valueKind, 'bool');
    assert.equal(pc.default, 'None');
    assert.ok(cat.optionStrings.includes('--no-enable-prefix-caching'));
    const tp = option(cat, '--tensor-parallel-size');
    assert.deepEqual(tp.names, ['--tensor-parallel-size', '-tp']);
    assert.equal(tp.valueKind, 'int');
    assert.equal(tp.default, '1');
    const kv = option(cat, '--kv-cache-dtype');
    assert.equal(kv.valueKind, 'choice');
    assert.ok(kv.choices?.includes('fp8'));
    // A default wrapped over several lines is joined back together.
    assert.match(option(cat, '--structured-outputs-config').default ?? '', /^StructuredOutputsConfig\(backend='auto'.*\)$/);
    assert.equal(option(cat, '--api-key').valueKind, 'list');
    assert.equal(option(cat, '--gpu-memory-utilization').valueKind, 'float');
  });

  test('SGLang v0.5.7: tp-size alias and attention-backend choices', () => {
    const cat = parseFixture('sglang/v0.5.7/sglang_launch_server.txt');
    assert.equal(cat.framework, 'sglang');
    assert.equal(cat.prog, 'launch_server.py');
    // This version prints the long name first: `--tensor-parallel-size TP, --tp-size TP`.
    assert.deepEqual(option(cat, '--tp-size').names, ['--tensor-parallel-size', '--tp-size']);
    const ab = option(cat, '--attention-backend');
    assert.equal(ab.valueKind, 'choice');
    assert.ok(ab.choices?.includes('fa3'));
    assert.ok(ab.choices?.includes('flashinfer'));
    const hybrid = option(cat, '--hybrid-kvcache-ratio');
    assert.equal(hybrid.metavar, '[HYBRID_KVCACHE_RATIO]');
    assert.equal(hybrid.takesValue, true);
    assert.equal(option(cat, '--disable-radix-cache').valueKind, 'bool');
  });

  test('vLLM 0.10 and 0.9 plain --help parse as full argparse listings', () => {
    for (const rel of ['vllm/v0.10.2/vllm_serve_help.txt', 'vllm/v0.9.2/vllm_serve_help.txt']) {
      const cat = parseFixture(rel);
      assert.equal(cat.format, 'argparse', rel);
      assert.equal(cat.groupedSummaryOnly, false, rel);
      assert.ok(cat.optionStrings.includes('--max-model-len'), rel);
      assert.ok(cat.optionStrings.includes('--no-enable-prefix-caching'), rel);
    }
    const dep = option(parseFixture('vllm/v0.10.2/vllm_serve_help.txt'), '--disable-log-requests');
    assert.equal(dep.deprecated, true);
    assert.equal(dep.default, 'True');
  });

  test('deprecation is read from the option’s own text only', () => {
    const cat = parseFixture('vllm/v0.20.1/vllm_serve_all.txt');
    assert.equal(option(cat, '--calculate-kv-scales').deprecated, true);
    assert.equal(option(cat, '--allow-deprecated-quantization').deprecated, undefined);
  });

  test('Python 3.13 layout `--opt, --alias OPT` and an unwrapped short alias', () => {
    const text = [
      'usage: launch_server.py [-h] [--tp-size TP_SIZE]',
      '',
      'options:',
      '  -h, --help            show this help message and exit',
      '  --tp-size, --tensor-parallel-size TP_SIZE',
      '                        The tensor parallelism size.',
      '  --stream, --no-stream',
      '                        Stream output. (default: True)',
      '  --mode {a,b}          Pick one.',
      '',
    ].join('\n');
    const cat = parseHelp(text);
    assert.deepEqual(cat.optionStrings, ['--mode', '--no-stream', '--stream', '--tensor-parallel-size', '--tp-size']);
    const tp = option(cat, '--tp-size');
    assert.deepEqual(tp.names, ['--tp-size', '--tensor-parallel-size']);
    assert.equal(tp.takesValue, true);
    assert.equal(tp.valueKind, 'int');
    assert.deepEqual(option(cat, '--mode').choices, ['a', 'b']);
    assert.equal(option(cat, '--mode').description, 'Pick one.');
  });
});

describe('click texts (TensorRT-LLM)', () => {
  test('trtllm-serve serve: aliases, choices, tags stripped, underscores kept', () => {
    const cat = parseFixture('trtllm/main-serve.py-00209af1/trtllm_serve.txt');
    assert.equal(cat.format, 'click');
    assert.equal(cat.framework, 'tensorrt_llm');
    assert.equal(cat.prog, 'trtllm-serve serve');
    const tp = option(cat, '--tp_size');
    assert.deepEqual(tp.names, ['--tensor_parallel_size', '--tp_size']);
    assert.equal(tp.valueKind, 'int');
    assert.deepEqual(tp.tags, ['beta']);
    assert.equal(tp.description, 'Tensor parallelism size.');
    assert.ok(cat.options.every((o) => !o.description.includes(':tag:')));
    const backend = option(cat, '--backend');
    assert.deepEqual(backend.choices, ['pytorch', 'tensorrt', '_autodeploy']);
    assert.equal(option(cat, '--trust_remote_code').valueKind, 'bool');
    assert.equal(option(cat, '--free_gpu_memory_fraction').valueKind, 'float');
    assert.equal(option(cat, '--custom_module_dirs').valueKind, 'path');
  });

  test('click `--x / --no-x` switch and `[default: X]`', () => {
    const text = [
      'Usage: demo [OPTIONS]',
      '',
      'Options:',
      '  --cache / --no-cache  Use the cache.  [default: cache]',
      '  --level [low|high]    How much.',
      '  --help                Show this message and exit.',
    ].join('\n');
    const cat = parseHelp(text, { framework: 'tensorrt_llm' });
    assert.equal(cat.format, 'click');
    const cache = option(cat, '--cache');
    assert.deepEqual(cache.negations, ['--no-cache']);
    assert.equal(cache.default, 'cache');
    assert.deepEqual(cat.optionStrings, ['--cache', '--level', '--no-cache']);
  });
});

describe('vLLM grouped summary', () => {
  // vLLM >= 0.11 `vllm serve --help` (0 option strings per SOURCE.md): usage, description, group names.
  const summary = [
    'usage: vllm serve [model_tag] [options]',
    '',
    'Launch a local OpenAI-compatible API server to serve LLM',
    'completions via HTTP.',
    '',
    'Search by using: `--help=<ConfigGroup>` to explore options by section (e.g.,',
    '--help=ModelConfig, --help=Frontend)',
    '  Use `--help=all` to show all available flags at once.',
    '',
    'Config Groups:',
    '  positional arguments',
    '  options',
    '  Frontend              Arguments for the OpenAI-compatible frontend server.',
    '  ModelConfig           Configuration for the model.',
    '  CacheConfig           Configuration for the KV cache.',
    '',
  ].join('\n');

  test('is flagged, with no options', () => {
    const cat = parseHelp(summary, { fileName: 'vllm_serve_help.txt' });
    assert.equal(cat.groupedSummaryOnly, true);
    assert.equal(cat.format, 'vllm-grouped-summary');
    assert.deepEqual(cat.optionStrings, []);
    assert.equal(cat.prog, 'vllm serve');
  });

  test('a --help=all listing that mentions --help=all is not flagged', () => {
    assert.equal(parseFixture('vllm/v0.11.0/vllm_serve_all.txt').groupedSummaryOnly, false);
  });

  test('a --help=<keyword> search result is flagged too', () => {
    for (const heading of ["Parameters matching 'all':", "Arguments matching 'max':"]) {
      const text = `${heading}\n  --max-model-len MAX_MODEL_LEN\n                        Model context length.\n`;
      assert.equal(parseHelp(text).groupedSummaryOnly, true, heading);
    }
    const none = "No group or arguments matching 'all'.\nUse '--help' to see available groups or '--help=all' to see all available parameters.\n";
    assert.equal(parseHelp(none).groupedSummaryOnly, true);
  });
});

describe('garbage input', () => {
  test('empty, binary and huge texts give an empty catalog without throwing', () => {
    let seed = 42;
    const bytes = Buffer.alloc(200_000);
    for (let i = 0; i < bytes.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      bytes[i] = seed & 0xff;
    }
    const huge = 'lorem ipsum dolor sit amet '.repeat(200_000);
    const inputs = [
      '',
      bytes.toString('latin1'),
      bytes.toString('utf8'),
      huge,
      '  --'.repeat(1_000_000),
      `options:\n${'  '.repeat(500_000)}--x\n`,
      '{'.repeat(100_000),
      undefined as unknown as string,
    ];
    for (const input of inputs) {
      const cat = parseHelp(input);
      assert.deepEqual(cat.optionStrings, []);
      assert.deepEqual(cat.options, []);
    }
  });

  // Linear, not a blow-up: a quadratic parse of 5 MB would take hours, so finishing is the check (no wall-clock bound).
  test('5 MB of text parses', () => {
    const big = `usage: x [-h]\n\noptions:\n${'  --flag-a FLAG_A       some help text that wraps\n                        onto a second line.\n'.repeat(60_000)}`;
    assert.ok(big.length > 5_000_000);
    const cat = parseHelp(big);
    assert.deepEqual(cat.optionStrings, ['--flag-a']);
  });
});

describe('snapshot files', () => {
  test('classification by file name', () => {
    const cases: [string, string | undefined, string | undefined][] = [
      ['sglang_launch_server.txt', 'sglang', 'server'],
      ['sglang_bench_serving.txt', 'sglang', 'client'],
      ['sglang_bench_serving_via_benchmark_serving.txt', 'sglang', 'client'],
      ['vllm_serve_all.txt', 'vllm', 'server'],
      ['vllm_serve_help.txt', 'vllm', 'server'],
      ['vllm_bench_serve_all.txt', 'vllm', 'client'],
      ['vllm_bench_serve_help.txt', 'vllm', 'client'],
      ['vllm_bench_sweep_serve_all.txt', 'vllm', 'client'],
      ['trtllm_serve.txt', 'tensorrt_llm', 'server'],
      ['trtllm_benchmark_serving.txt', 'tensorrt_llm', 'client'],
      ['tokenspeed_serve.txt', 'tokenspeed', 'server'],
      ['tokenspeed_serve_engine_args.txt', 'tokenspeed', 'server'],
      ['/some/dir/vllm-serve.txt', 'vllm', 'server'],
      ['notes.txt', undefined, undefined],
      ['vllm_run_batch.txt', undefined, undefined],
    ];
    for (const [name, fw, role] of cases) {
      const c = classifySnapshotFile(name);
      assert.equal(c?.framework, fw, name);
      assert.equal(c?.role, role, name);
    }
  });

  test('discoverSnapshots skips SOURCE.md and lists clients as clients', () => {
    const snaps = discoverSnapshots(path.join(HELP, 'vllm/v0.20.1'));
    assert.deepEqual(
      snaps.map((s) => [path.basename(s.path), s.role]),
      [
        ['vllm_bench_serve_all.txt', 'client'],
        ['vllm_bench_sweep_serve_all.txt', 'client'],
        ['vllm_serve_all.txt', 'server'],
      ],
    );
    assert.deepEqual(discoverSnapshots(path.join(HELP, 'no-such-folder')), []);
  });

  test('client snapshots never widen the server flags', () => {
    const cats = loadServerCatalogs(path.join(HELP, 'vllm/v0.20.1'));
    const vllm = cats.get('vllm');
    assert.ok(vllm);
    assert.deepEqual(vllm.files.map((f) => path.basename(f)), ['vllm_serve_all.txt']);
    assert.equal(vllm.catalog.optionStrings.length, 305);
    assert.ok(!vllm.catalog.optionStrings.includes('--request-rate'));
    const trt = loadServerCatalogs(path.join(HELP, 'trtllm/main-benchmark_serving.py-0228a712'));
    assert.equal(trt.size, 0);
  });

  test('TokenSpeed serve + engine args merge into one catalog', () => {
    const cats = loadServerCatalogs(path.join(HELP, 'tokenspeed/v0.1.0'));
    const ts = cats.get('tokenspeed');
    assert.ok(ts);
    assert.deepEqual(ts.files.map((f) => path.basename(f)), ['tokenspeed_serve.txt', 'tokenspeed_serve_engine_args.txt']);
    assert.equal(ts.catalog.optionStrings.length, 174);
    assert.equal(ts.catalog.groupedSummaryOnly, false);
    assert.ok(ts.catalog.optionStrings.includes('--enable-prefix-caching'));
  });
});

describe('flag specs', () => {
  test('vLLM: underscored keys, aliases, default-on pair renders its --no form', () => {
    const specs = catalogToFlagSpecs(parseFixture('vllm/v0.20.1/vllm_serve_all.txt'), 'vllm');
    const pc = lookupFlag(specs, 'enable_prefix_caching', 'vllm');
    assert.equal(pc?.key, 'enable_prefix_caching');
    assert.equal(pc?.defaultOn, true);
    assert.equal(pc?.disableForm, '--no-enable-prefix-caching');
    const mml = lookupFlag(specs, 'max-model-len', 'vllm');
    assert.equal(mml?.key, 'max_model_len');
    assert.equal(mml?.default, 'None');
    // A pair printed with default False is off unless asked; it still knows its --no form.
    const cred = lookupFlag(specs, 'allow_credentials', 'vllm');
    assert.equal(cred?.defaultOn, undefined);
    assert.equal(cred?.disableForm, '--no-allow-credentials');
    assert.equal(lookupFlag(specs, 'request_rate', 'vllm'), undefined);
  });

  test('SGLang: tp_size found through its alias; separate --disable-x of a default-on flag', () => {
    const specs = catalogToFlagSpecs(parseFixture('sglang/v0.5.7/sglang_launch_server.txt'), 'sglang');
    const tp = lookupFlag(specs, 'tp_size', 'sglang');
    assert.equal(tp?.key, 'tensor_parallel_size');
    assert.deepEqual(tp?.aliases, ['tp_size']);
    assert.equal(lookupFlag(specs, 'attention_backend', 'sglang')?.kind, 'choice');
    assert.equal(lookupFlag(specs, 'disable_radix_cache', 'sglang')?.kind, 'bool');

    const later = catalogToFlagSpecs(parseFixture('sglang/main-2026-05-15-3c2956d88/sglang_launch_server.txt'), 'sglang');
    const pcg = lookupFlag(later, 'enable_piecewise_cuda_graph', 'sglang');
    assert.equal(pcg?.defaultOn, true);
    assert.equal(pcg?.disableForm, '--disable-piecewise-cuda-graph');
    assert.equal(pcg?.deprecated, true);
  });

  test('TensorRT-LLM: click names verbatim, either spelling found', () => {
    const specs = catalogToFlagSpecs(parseFixture('trtllm/main-serve.py-00209af1/trtllm_serve.txt'), 'tensorrt_llm');
    const tp = lookupFlag(specs, 'tp_size', 'tensorrt_llm');
    assert.equal(tp?.key, 'tensor_parallel_size');
    assert.deepEqual(tp?.aliases, ['tp_size']);
    assert.equal(tp?.kind, 'int');
    assert.equal(lookupFlag(specs, 'tp-size', 'tensorrt_llm'), tp);
    assert.equal(lookupFlag(specs, 'max-seq-len', 'tensorrt_llm')?.key, 'max_seq_len');
    assert.equal(lookupFlag(specs, 'extra_llm_api_options', 'tensorrt_llm')?.key, 'config');
    assert.deepEqual(lookupFlag(specs, 'backend', 'tensorrt_llm')?.choices, ['pytorch', 'tensorrt', '_autodeploy']);
    assert.equal(specs.length, 32);
  });
});
