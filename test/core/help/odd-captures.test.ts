// `--help-dir` over oddly named and oddly formatted captures (fixtures/odd-captures): sub-folders, mixed-case names,
// an empty and a failed capture, `--flag=VALUE` / `--flag{a,b}` option lines, flags only in the usage block.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checkConfigText } from '../../../src/core/config/check';
import { loadSnapshotFiles, loadSnapshotFlags } from '../../../src/core/config/snapshot-flags';
import { captureProblem, discoverSnapshots, parseHelp, readHelpFile } from '../../../src/core/help';
import type { FlagCatalog, HelpOption } from '../../../src/core/help';
import { mutate, VALID } from '../../support/fixtures';

const ODD = path.join(__dirname, 'fixtures', 'odd-captures');
const VLLM_TRUNCATED = path.join(ODD, 'vllm', 'v0.x-truncated', 'VLLM_Serve_Truncated.txt');
const TRT_NESTED = path.join(ODD, 'nested', 'deeper', 'trtllm', 'trtllm_serve.txt');

function option(cat: FlagCatalog, name: string): HelpOption {
  const o = cat.options.find((x) => x.names.includes(name) || x.negations.includes(name));
  assert.ok(o, `${name} not found`);
  return o;
}

describe('captures in sub-folders, matched by file name as the reference does', () => {
  test('every *.txt below the folder is found; mixed-case names count, a .TXT extension does not', () => {
    const found = discoverSnapshots(ODD).map((s) => [path.relative(ODD, s.path), s.framework, s.role]);
    assert.deepEqual(found, [
      ['nested/deeper/trtllm/trtllm_serve.txt', 'tensorrt_llm', 'server'],
      ['sglang/SGLang-Launch-Server.txt', 'sglang', 'server'],
      ['tokenspeed/tokenspeed_serve_failed.txt', 'tokenspeed', 'server'],
      ['vllm/v0.x-truncated/VLLM_Serve_Truncated.txt', 'vllm', 'server'],
    ]);
  });

  test('the folder name does not classify a file: trtllm/serve.txt is no capture', () => {
    const d = mkdtempSync(path.join(tmpdir(), 'autobench-help-'));
    writeFileSync(path.join(d, 'serve.txt'), '  --tp_size INTEGER\n');
    assert.deepEqual(discoverSnapshots(d), []);
  });

  test('the nested TensorRT-LLM capture is used for its flags', () => {
    const loaded = loadSnapshotFlags(ODD);
    assert.deepEqual(loaded.flags.tensorrt_llm?.files, [TRT_NESTED]);
    assert.ok(!loaded.missing.includes('tensorrt_llm'));
  });
});

describe('an empty or failed capture is ignored with a warning', () => {
  test('captureProblem: empty text, text with no --option, a real capture', () => {
    assert.equal(captureProblem(''), 'empty');
    assert.equal(captureProblem(' \n\n'), 'empty');
    assert.equal(captureProblem('bash: vllm: command not found\n'), 'no-flags');
    assert.equal(captureProblem('usage: tokenspeed serve [-h]\n\noptions:\n  -h, --help  show this help\n'), undefined);
  });

  test('the folder reports both and leaves their frameworks on the built-in table', () => {
    const loaded = loadSnapshotFlags(ODD);
    assert.deepEqual(
      loaded.ignored.map((c) => [path.relative(ODD, c.path), c.framework, c.why]),
      [
        ['sglang/SGLang-Launch-Server.txt', 'sglang', 'empty'],
        ['tokenspeed/tokenspeed_serve_failed.txt', 'tokenspeed', 'no-flags'],
      ],
    );
    assert.deepEqual(loaded.missing, ['sglang', 'tokenspeed']);
    assert.deepEqual(Object.keys(loaded.flags).sort(), ['tensorrt_llm', 'vllm']);
  });

  test('no flag of a framework whose only capture is empty becomes unknown', () => {
    const r = checkConfigText(VALID, { snapshots: loadSnapshotFlags(ODD).flags });
    assert.deepEqual(r.findings.filter((f) => f.severity === 'error' && f.path[1] === 'sglang'), []);
  });

  test('named files (version_manifest, preflight) skip an empty capture too', () => {
    const d = mkdtempSync(path.join(tmpdir(), 'autobench-help-'));
    const empty = path.join(d, 'vllm_serve.txt');
    writeFileSync(empty, '');
    const loaded = loadSnapshotFiles({ vllm: [empty] });
    assert.equal(loaded.flags.vllm, undefined);
    assert.deepEqual(loaded.ignored, [{ path: empty, framework: 'vllm', why: 'empty' }]);
  });
});

describe('odd option spellings', () => {
  const cat = parseHelp(readHelpFile(VLLM_TRUNCATED), { fileName: VLLM_TRUNCATED });

  test('`--flag=VALUE` and `--flag{a,b}` option lines are options with their metavar', () => {
    assert.equal(option(cat, '--max-model-len').metavar, 'MAX_MODEL_LEN');
    const kv = option(cat, '--kv-cache-dtype');
    assert.equal(kv.valueKind, 'choice');
    assert.deepEqual(kv.choices, ['auto', 'fp8']);
    assert.match(kv.description, /^Data type for kv cache storage/);
  });

  test('flags only in the usage block are read, with their value and negation', () => {
    assert.equal(option(cat, '--max-num-seqs').metavar, 'MAX_NUM_SEQS');
    assert.equal(option(cat, '--gpu-memory-utilization').valueKind, 'float');
    const pc = option(cat, '--enable-prefix-caching');
    assert.deepEqual([pc.names, pc.negations, pc.takesValue], [['--enable-prefix-caching'], ['--no-enable-prefix-caching'], false]);
    assert.equal(option(cat, '--speculative-config').metavar, '[SPECULATIVE_CONFIG]');
    assert.equal(option(cat, '--allowed-origins').valueKind, 'list');
  });

  test('an option in both the listing and the usage block is listed once, described by the listing', () => {
    const tp = cat.options.filter((o) => o.names.includes('--tensor-parallel-size'));
    assert.equal(tp.length, 1);
    assert.deepEqual(tp[0]?.names, ['--tensor-parallel-size', '-tp']);
    assert.equal(cat.optionStrings.filter((s) => s === '--host').length, 1);
    assert.ok(!cat.optionStrings.includes('--help'));
  });

  test('a click line `--max_batch_size=INTEGER` is an int option', () => {
    const trt = parseHelp(readHelpFile(TRT_NESTED), { fileName: TRT_NESTED });
    assert.equal(option(trt, '--max_batch_size').valueKind, 'int');
  });

  test('a config is checked against all of it: usage-only flags pass, a flag the capture lacks does not', () => {
    const text = mutate('      max_num_seqs: [64, 128]\n', '      max_num_seqs: [64, 128]\n      kv_cache_dtype: [auto, fp8]\n      enable_prefix_caching: [true]\n      block_size: [16]\n');
    const r = checkConfigText(text, { snapshots: loadSnapshotFlags(ODD).flags });
    assert.deepEqual(r.findings.filter((f) => f.severity === 'error').map((f) => f.message), ["vllm: unknown or unsupported server flag 'block_size'"]);
  });
});
