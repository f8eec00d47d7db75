// `autobench validate` as a user runs it: the built CLI, its output lines and exit codes.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELP, mutate, REPO, UPSTREAM, UPSTREAM_SGLANG, VALID } from '../support/fixtures';

const CLI = join(REPO, 'dist', 'cli.js');

function run(args: string[], cwd = REPO) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('autobench validate', () => {
  let dir: string;
  before(() => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    dir = mkdtempSync(join(tmpdir(), 'autobench-validate-'));
  });

  test('the shipped model set passes: exit 0 and nothing on stdout', () => {
    const r = run(['validate', 'configs/cookbook-llm/']);
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(r.out, '');
  });

  test('errors print as <path>: <error> and exit 1', () => {
    const r = run(['validate', join(UPSTREAM_SGLANG, 'qwen3-235b-a22b.yaml')]);
    assert.equal(r.code, 1);
    const p = join(UPSTREAM_SGLANG, 'qwen3-235b-a22b.yaml');
    assert.equal(
      r.out,
      [
        `${p}: missing frameworks.tokenspeed`,
        `${p}: sla: 'max_p99_ttft_ms' is deprecated; use 'max_p50_ttft_ms' (see references/result-schema.md)`,
        `${p}: sla: 'max_p99_tpot_ms' is deprecated; use 'max_p50_tpot_ms' (see references/result-schema.md)`,
        '',
      ].join('\n'),
    );
  });

  test('a folder is searched recursively for .yaml and .yml, each file once', () => {
    const d = join(dir, 'tree');
    mkdirSync(join(d, 'sub'), { recursive: true });
    writeFileSync(join(d, 'a.yaml'), VALID);
    writeFileSync(join(d, 'sub', 'b.yml'), mutate('schema_version: 1', 'schema_version: 3'));
    writeFileSync(join(d, 'sub', 'notes.txt'), 'not yaml');
    const r = run(['validate', d, join(d, 'a.yaml'), join(d, 'sub')]);
    assert.equal(r.code, 1);
    assert.equal(r.out, `${join(d, 'sub', 'b.yml')}: schema_version must be 1\n`);
  });

  test('--print-commands prints the baseline of each enabled framework', () => {
    const f = join(dir, 'print.yaml');
    writeFileSync(f, VALID);
    const r = run(['validate', '--print-commands', f]);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      [
        '# print.yaml sglang',
        'python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 4 --mem-fraction-static 0.82',
        '# print.yaml vllm',
        'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 12288',
        '',
      ].join('\n'),
    );
  });

  test('--json lists every bounded candidate, errors and warnings with lines', () => {
    const f = join(dir, 'json.yaml');
    const text = mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      block_size: [16]');
    writeFileSync(f, text);
    const r = run(['validate', '--json', f]);
    assert.equal(r.code, 0, r.err);
    const [rep] = JSON.parse(r.out) as Array<{ file: string; errors: unknown[]; warnings: Array<{ code: string; line: number }>; candidates: Record<string, string[]> }>;
    assert.ok(rep);
    assert.equal(rep.file, f);
    assert.deepEqual(rep.errors, []);
    const w = rep.warnings.find((x) => x.code === 'forced-block-size');
    assert.ok(w);
    assert.equal(w.line, text.split('\n').findIndex((l) => l.includes('block_size')) + 1);
    assert.deepEqual(Object.keys(rep.candidates), ['sglang', 'vllm']);
    assert.deepEqual(rep.candidates.vllm, [
      'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 12288',
      'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 12288 --max-num-seqs 64 --block-size 16',
      'vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 12288 --max-num-seqs 128 --block-size 16',
    ]);
  });

  test('warnings go to stderr with file:line:col and leave the exit code alone', () => {
    const f = join(dir, 'warn.yaml');
    const text = mutate('      max_num_seqs: [64, 128]', '      max_num_seqs: [64, 128]\n      block_size: [16]');
    writeFileSync(f, text);
    const line = text.split('\n').findIndex((l) => l.includes('block_size')) + 1;
    const r = run(['validate', f]);
    assert.equal(r.code, 0);
    assert.equal(r.out, '');
    assert.match(r.err, new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:7: warning: vllm: block_size forces`));
    assert.ok(!r.err.includes('\u001b['), 'no colour when stderr is not a TTY');
  });

  test('--help-dir checks flags against the exact CLI version', () => {
    // long_prefill_token_threshold is in the built-in table but not in vLLM 0.6.6's serve --help.
    const cfg = join(UPSTREAM, 'qwen3-235b-a22b.yaml');
    const help = join(dir, 'help-066');
    cpSync(join(HELP, 'vllm', 'v0.6.6'), help, { recursive: true });
    const r = run(['validate', '--help-dir', help, cfg]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /vllm: unknown or unsupported server flag 'long_prefill_token_threshold'/);
    assert.ok(!/sglang:|tensorrt_llm:|tokenspeed:/.test(r.out), 'frameworks without a snapshot keep the built-in table');
  });

  test('--help-dir: a flag named anywhere in a file the playbook validator reads counts, as it does there (with a warning)', () => {
    // The reference (validate_cookbook_configs.py at afb306e, _extract_help_flags) takes every `--name` in every *.txt
    // whose name holds "vllm" and "serve", option line or not: with this notes file it no longer reports
    // long_prefill_token_threshold (run with Python 3.11.7: the two partial-prefill flags are still unknown).
    const cfg = join(UPSTREAM, 'qwen3-235b-a22b.yaml');
    const help = join(dir, 'help-066-notes');
    cpSync(join(HELP, 'vllm', 'v0.6.6'), help, { recursive: true });
    writeFileSync(join(help, 'vllm_serve_notes.txt'), 'Notes on this capture: later releases add --long-prefill-token-threshold (used by the cookbook).\n');
    const r = run(['validate', '--help-dir', help, cfg]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.ok(!r.out.includes("'long_prefill_token_threshold'"), r.out);
    assert.match(r.out, /vllm: unknown or unsupported server flag 'max_num_partial_prefills'/);
    assert.match(r.err, /warning: vllm: long_prefill_token_threshold is on no option line of the captured --help; vllm_serve_notes\.txt names it, so it is accepted .*\[flag-mentioned-only\]/);
    // A file the reference does not read (no "serve" in its name) adds nothing.
    const other = join(dir, 'help-066-other');
    cpSync(join(HELP, 'vllm', 'v0.6.6'), other, { recursive: true });
    writeFileSync(join(other, 'vllm_notes.txt'), 'see --long-prefill-token-threshold\n');
    assert.match(run(['validate', '--help-dir', other, cfg]).out, /unknown or unsupported server flag 'long_prefill_token_threshold'/);
  });

  test('a snapshot adds flags the built-in table lacks', () => {
    const f = join(dir, 'snap-adds.yaml');
    writeFileSync(f, mutate('      max_model_len: 12288\n', '      max_model_len: 12288\n      enable_force_include_usage: true\n'));
    const help = join(dir, 'help-0201');
    cpSync(join(HELP, 'vllm', 'v0.20.1'), help, { recursive: true });
    assert.equal(run(['validate', f]).code, 1, 'the built-in table does not know the flag');
    const r = run(['validate', '--help-dir', help, f]);
    assert.equal(r.code, 0, r.out);
  });

  test('--help-dir must exist; an empty one says so', () => {
    const cfg = join(UPSTREAM, 'qwen3-235b-a22b.yaml');
    const gone = run(['validate', '--help-dir', join(dir, 'no-such-dir'), cfg]);
    assert.equal(gone.code, 2);
    assert.match(gone.err, /--help-dir .*no-such-dir: no such directory/);
    const empty = join(dir, 'empty-help');
    mkdirSync(empty);
    const r = run(['validate', '--help-dir', empty, cfg]);
    assert.equal(r.code, 0);
    assert.match(r.err, /holds no server snapshot/);
  });

  test('--help-dir reads captures in sub-folders and warns about an empty or failed one', () => {
    const odd = join(REPO, 'test', 'core', 'help', 'fixtures', 'odd-captures');
    const f = join(dir, 'odd.yaml');
    writeFileSync(f, mutate('      max_num_seqs: [64, 128]\n', '      max_num_seqs: [64, 128]\n      kv_cache_dtype: [auto, fp8]\n      block_size: [16]\n'));
    const r = run(['validate', '--help-dir', odd, f]);
    assert.equal(r.code, 1, r.out + r.err);
    // block_size is missing from the truncated vLLM capture; sglang's only capture is empty, so nothing of it is unknown.
    assert.equal(r.out, `${f}: vllm: unknown or unsupported server flag 'block_size'\n`);
    assert.ok(r.err.includes(`warning: ${join(odd, 'sglang', 'SGLang-Launch-Server.txt')}: the captured --help is empty (a failed capture?); ignored, so sglang flags are checked against the built-in table`), r.err);
    assert.ok(r.err.includes(`warning: ${join(odd, 'tokenspeed', 'tokenspeed_serve_failed.txt')}: the captured --help names no --option`), r.err);
    assert.ok(!r.err.includes('holds no server snapshot'), r.err);
    assert.ok(!run(['validate', '--quiet', '--help-dir', odd, f]).err.includes('warning'));
  });

  test('a framework without enabled is disabled, with a warning on its line', () => {
    const f = join(dir, 'no-enabled.yaml');
    const text = mutate('  vllm:\n    enabled: true\n    server_command: vllm serve\n', '  vllm:\n    server_command: 7\n');
    writeFileSync(f, text);
    const r = run(['validate', '--print-commands', f]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.deepEqual(r.out.split('\n').filter((l) => l.startsWith('# ')), ['# no-enabled.yaml sglang']);
    const line = text.split('\n').indexOf('  vllm:') + 1;
    assert.ok(r.err.includes(`${f}:${line}:3: warning: vllm: no 'enabled' key, so this framework is disabled: it is not checked and not run; add enabled: true to run it [enabled-missing]`), r.err);
  });

  test('files print in the reference\'s order and spelling, whatever the argument order', () => {
    const d = join(dir, 'order');
    mkdirSync(join(d, 'a'), { recursive: true });
    const bad = mutate('schema_version: 1', 'schema_version: 2');
    for (const name of ['b.yaml', 'a-c.yaml', join('a', 'z.yaml')]) writeFileSync(join(d, name), bad);
    const r = run(['validate', 'b.yaml', './a-c.yaml', 'a/'], d);
    assert.equal(r.code, 1);
    assert.equal(r.out, ['a/z.yaml', 'a-c.yaml', 'b.yaml'].map((n) => `${n}: schema_version must be 1\n`).join(''));
  });

  test('usage errors exit 2 with a message, missing paths exit 1', () => {
    const bad = run(['validate', '--no-such-option', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^autobench: /);
    assert.ok(!/\n\s+at /.test(bad.err), 'no stack trace');
    assert.equal(run(['validate']).code, 2);
    const missing = run(['validate', join(dir, 'nope.yaml')]);
    assert.equal(missing.code, 1);
    assert.equal(missing.out, `${join(dir, 'nope.yaml')}: no such file or directory\n`);
  });

  test('--help describes the options', () => {
    const r = run(['validate', '--help']);
    assert.equal(r.code, 0);
    for (const opt of ['--help-dir', '--print-commands', '--json', 'exit status']) assert.ok(r.out.includes(opt), opt);
  });
});
