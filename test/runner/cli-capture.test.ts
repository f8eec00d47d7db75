// Issue 25, audit #3, #4, #14: the flag list and the version read from CLIs that print what the real engines print
// (texts from the help fixtures), as small scripts on PATH run by a LocalExecutor.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/exec';
import { readRunPlan } from '../../src/core/plan/build';
import { RunDir } from '../../src/runner/artifacts';
import { captureHelp, captureVersion, recheckAgainstHelp } from '../../src/runner/preflight';
import { pythonOfShebang } from '../../src/runner/cli-capture';
import { HELP } from '../support/fixtures';
import { cleanup, planYaml, tempDir } from '../support/runner';

const TS = path.join(HELP, 'tokenspeed', 'main-2026-08-22-f4d8ec6e');
const VLLM_0102 = path.join(HELP, 'vllm', 'v0.10.2', 'vllm_serve_help.txt');
const VLLM_085 = path.join(HELP, 'vllm', 'v0.8.5', 'vllm_serve_help.txt');
const TRT = path.join(HELP, 'trtllm', 'main-serve.py-00209af1', 'trtllm_serve.txt');

/** vLLM 0.9.2–0.10.2 `vllm serve --help=all` (SOURCE.md of those fixtures: a keyword search that prints `Parameters matching 'all':`), exit 0. */
const KEYWORD_SEARCH = [
  "Parameters matching 'all':",
  '',
  '  --allow-credentials, --no-allow-credentials',
  '                        Allow credentials. (default: False)',
  '  --allowed-headers ALLOWED_HEADERS',
  "                        Allowed headers. (default: ['*'])",
  '  --allowed-methods ALLOWED_METHODS',
  "                        Allowed methods. (default: ['*'])",
  '  --allowed-origins ALLOWED_ORIGINS',
  "                        Allowed origins. (default: ['*'])",
  '  --allowed-local-media-path ALLOWED_LOCAL_MEDIA_PATH',
  '                        Allowing API requests to read local images.',
  '  --disable-custom-all-reduce, --no-disable-custom-all-reduce',
  '                        See ParallelConfig. (default: False)',
  '  --enable-expert-parallel, --no-enable-expert-parallel',
  '                        Use expert parallelism instead of tensor parallelism for MoE layers (all-to-all). (default: False)',
  '',
].join('\n');

function script(file: string, body: string, shebang = '#!/bin/sh'): void {
  writeFileSync(file, `${shebang}\n${body}\n`);
  chmodSync(file, 0o755);
}

/** A bin folder with the given scripts and a LocalExecutor whose PATH starts there. */
function fakeHost(dir: string, scripts: Record<string, string>): LocalExecutor {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, body] of Object.entries(scripts)) script(path.join(bin, name), body);
  return new LocalExecutor({ baseEnv: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } });
}

/**
 * TokenSpeed installed in a venv: `tokenspeed` is a console script whose `#!` names the venv's python (here a shell
 * script standing in for it). `engineParser`: whether `python -c '…ServerArgs.add_cli_args…'` works there.
 */
function tokenspeedHost(dir: string, engineParser: boolean): LocalExecutor {
  const venv = path.join(dir, 'venv', 'bin');
  mkdirSync(venv, { recursive: true });
  const py = path.join(venv, 'python3.12');
  script(
    py,
    [
      'if [ "$1" = -c ]; then',
      '  case "$2" in',
      `    *ServerArgs.add_cli_args*) ${engineParser ? `cat '${path.join(TS, 'tokenspeed_serve_engine_args.txt')}'` : "echo \"ModuleNotFoundError: No module named 'torch'\" >&2; exit 1"} ;;`,
      '    *tokenspeed.version*) echo 0.1.0 ;;',
      '    *) exit 1 ;;',
      '  esac',
      '  exit 0',
      'fi',
      // Run as the interpreter of the console script: $1 is the script, then its arguments (cli/__main__.py @11165293).
      'shift',
      'case "$*" in',
      `  "serve --help") cat '${path.join(TS, 'tokenspeed_serve.txt')}' ;;`,
      '  version) echo "TokenSpeed v0.1.0" ;;',
      '  *) echo "usage: tokenspeed [-h] {serve,version} ..." >&2; exit 2 ;;',
      'esac',
    ].join('\n'),
  );
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  script(path.join(dir, 'bin', 'tokenspeed'), '# console script: python runs it', `#!${py}`);
  return new LocalExecutor({ baseEnv: { ...process.env, PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}` } });
}

const TOKENSPEED_PLAN = planYaml({ frameworks: { tokenspeed: 'enabled: true\nserver_command: tokenspeed serve\nbase_server_flags:\n  tensor_parallel_size: 1\n  max_model_len: 1024\nsearch_space:\n  max_num_seqs: [8, 64]' } });

describe('audit #3: TokenSpeed flags come from its engine parser, not `tokenspeed serve --help`', () => {
  test("the engine parser's help is captured with the Python that runs tokenspeed, and no candidate is skipped", async () => {
    const dir = tempDir();
    try {
      const ex = tokenspeedHost(dir, true);
      const run = new RunDir(path.join(dir, 'run'));
      const help = await captureHelp(ex, run, 'tokenspeed', 'tokenspeed serve');
      assert.equal(help.ok, true, help.detail);
      assert.equal(help.command[0], path.join(dir, 'venv', 'bin', 'python3.12'));
      assert.equal(help.file, 'help/tokenspeed_serve_engine_args.txt');
      assert.match(readFileSync(run.path(help.file), 'utf8'), /^usage: tokenspeed serve \[-h\] \[--model MODEL\][^]*--max-num-seqs MAX_NUM_SEQS/);
      const plan = readRunPlan({ text: TOKENSPEED_PLAN, path: path.join(dir, 'x.plan.yaml') });
      const f = plan.frameworks.find((x) => x.framework === 'tokenspeed');
      assert.ok(f);
      assert.equal(f.status, 'run', f.reason);
      assert.equal(f.candidates.length, 3);
      const v = recheckAgainstHelp(plan, f, run.path(help.file));
      assert.equal(v.skipped, 0);
      assert.deepEqual(f.candidates.map((c) => c.skip), [undefined, undefined, undefined]);
    } finally {
      cleanup(dir);
    }
  });

  test('when the engine parser cannot be read, `serve --help` (only --headless) is "no flag list", not a catalog', async () => {
    const dir = tempDir();
    try {
      const run = new RunDir(path.join(dir, 'run'));
      const help = await captureHelp(tokenspeedHost(dir, false), run, 'tokenspeed', 'tokenspeed serve');
      assert.equal(help.ok, false);
      assert.equal(help.file, undefined, 'nothing to re-check candidates against');
      assert.match(help.detail, /no flag list captured, so candidates are checked against the built-in flag table only/);
      assert.match(help.detail, /ModuleNotFoundError/);
      assert.match(help.detail, /tokenspeed serve --help: lists only 1 option \(--headless\): no flag list/);
    } finally {
      cleanup(dir);
    }
  });
});

describe('audit #4: vLLM --help=all that is a keyword search or a usage error falls back to --help', () => {
  test('0.9.2–0.10.2: `--help=all` exits 0 with `Parameters matching`; the full `--help` is kept', async () => {
    const dir = tempDir();
    try {
      const ex = fakeHost(dir, { vllm: `case "$*" in\n  "serve --help=all") cat <<'EOF'\n${KEYWORD_SEARCH}EOF\n;;\n  "serve --help") cat '${VLLM_0102}' ;;\n  *) exit 2 ;;\nesac` });
      const run = new RunDir(path.join(dir, 'run'));
      const help = await captureHelp(ex, run, 'vllm', 'vllm serve');
      assert.equal(help.ok, true, help.detail);
      assert.deepEqual(help.command, ['vllm', 'serve', '--help']);
      assert.match(help.detail, /passed over: vllm serve --help=all: a keyword search, not a flag list \(Parameters matching/);
      assert.equal(readFileSync(run.path(help.file ?? ''), 'utf8').split('\n').length, readFileSync(VLLM_0102, 'utf8').split('\n').length, 'the full --help text');
      const plan = readRunPlan({ text: planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve\nsearch_space:\n  max_num_seqs: [8, 64]' } }), path: path.join(dir, 'x.plan.yaml') });
      const f = plan.frameworks.find((x) => x.framework === 'vllm');
      assert.ok(f);
      assert.equal(recheckAgainstHelp(plan, f, run.path(help.file ?? '')).skipped, 0);
    } finally {
      cleanup(dir);
    }
  });

  test('<= 0.8: `--help=all` is an argparse error (exit 2); `--help` is kept', async () => {
    const dir = tempDir();
    try {
      const err = "vllm serve: error: argument -h/--help: ignored explicit argument 'all'";
      const ex = fakeHost(dir, { vllm: `case "$*" in\n  "serve --help=all") echo "${err}" >&2; exit 2 ;;\n  "serve --help") cat '${VLLM_085}' ;;\nesac` });
      const help = await captureHelp(ex, new RunDir(path.join(dir, 'run')), 'vllm', 'vllm serve');
      assert.equal(help.ok, true);
      assert.deepEqual(help.command, ['vllm', 'serve', '--help']);
      assert.match(help.detail, /vllm serve --help=all: exit 2: vllm serve: error: argument -h\/--help: ignored explicit argument 'all'/);
    } finally {
      cleanup(dir);
    }
  });

  test('a keyword search alone (no full listing anywhere) is no flag list', async () => {
    const dir = tempDir();
    try {
      const ex = fakeHost(dir, { vllm: `cat <<'EOF'\n${KEYWORD_SEARCH}EOF` });
      const help = await captureHelp(ex, new RunDir(path.join(dir, 'run')), 'vllm', 'vllm serve');
      assert.equal(help.ok, false);
      assert.equal(help.file, undefined);
    } finally {
      cleanup(dir);
    }
  });
});

describe('audit #14: versions read the way each CLI gives them, and the command that did is recorded', () => {
  test('TokenSpeed: `tokenspeed version` (TokenSpeed v<x>); it has no --version', async () => {
    const dir = tempDir();
    try {
      const v = await captureVersion(tokenspeedHost(dir, true), 'tokenspeed', 'tokenspeed serve');
      assert.deepEqual(v, { command: ['tokenspeed', 'version'], version: '0.1.0' });
    } finally {
      cleanup(dir);
    }
  });

  test("TensorRT-LLM: the package's version under the Python of trtllm-serve's #! line, not the python3 on PATH", async () => {
    const dir = tempDir();
    try {
      const venv = path.join(dir, 'venv', 'bin');
      mkdirSync(venv, { recursive: true });
      const py = path.join(venv, 'python3');
      // An import that logs first (TensorRT-LLM prints its banner), then the version.
      script(py, 'if [ "$1" = -c ]; then echo "[TensorRT-LLM] TensorRT-LLM version: 1.2.0rc2"; echo 1.2.0rc2; exit 0; fi\nshift\ncat ' + `'${TRT}'`);
      const ex = fakeHost(dir, {
        // The python3 on PATH has no tensorrt_llm (a different interpreter).
        python3: `echo "ModuleNotFoundError: No module named 'tensorrt_llm'" >&2; exit 1`,
      });
      script(path.join(dir, 'bin', 'trtllm-serve'), '# console script', `#!${py}`);
      const v = await captureVersion(ex, 'tensorrt_llm', 'trtllm-serve serve');
      assert.equal(v.version, '1.2.0rc2');
      assert.deepEqual(v.command, [py, '-c', 'import tensorrt_llm; print(tensorrt_llm.__version__)']);
    } finally {
      cleanup(dir);
    }
  });

  test('#! lines: a python path, env python, anything else', () => {
    assert.equal(pythonOfShebang('#!/opt/venv/bin/python3.12'), '/opt/venv/bin/python3.12');
    assert.equal(pythonOfShebang('#!/usr/bin/env python3'), 'python3');
    assert.equal(pythonOfShebang('#!/usr/bin/env -S python3 -u'), 'python3');
    assert.equal(pythonOfShebang('#!/bin/sh'), undefined);
    assert.equal(pythonOfShebang('import sys'), undefined);
  });
});
