// `autobench run`'s exit status beyond usage errors: --sim-opts checked before any server starts (exit 2, no run
// directory), and a run that finished without one measured trial exits 3, saying so, instead of 0.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/cli/errors';
import { EXIT_NOTHING_MEASURED, RUN_HELP } from '../../src/cli/run';
import { CLI, cli, runOptions as options } from '../support/run-cli';
import { planYaml } from '../support/runner';

const PLAN = planYaml({
  frameworks: { vllm: 'base_server_flags:\n  max_model_len: 1024\nsearch_space:\n  max_num_seqs: [4]' },
  dataset: 'num_prompts: 8\nscenario_names: [chat]\ninput_len: [64]\noutput_len: [16]',
  benchmark: 'request_rates: [1]',
});

describe('run exit status', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-exit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const plan = join(dir, 'x.plan.yaml');
  writeFileSync(plan, PLAN);

  test('--sim-opts: an unknown option or a bad value is a usage error naming it', () => {
    const usage = (message: string) => (e: unknown) => e instanceof UsageError && e.message === message;
    assert.throws(() => options('--sim-opts=--sim-bogus 1'), usage("--sim-opts: unknown simulator option --sim-bogus (the --sim-* options are listed by 'autobench sim --help')"));
    assert.throws(() => options('--sim-opts=--sim-noise abc'), usage("--sim-opts: --sim-noise: invalid value 'abc' (a number >= 0)"));
    assert.equal(options('--sim-opts=--sim-noise 0.03').simExtraOptions, '--sim-noise 0.03');
  });

  test('the built CLI: a bad --sim-opts exits 2 before any server starts (no run directory)', () => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    const out = join(dir, 'bad-sim-opts');
    const r = cli('run', plan, '--target', 'sim', '--out', out, '--sim-opts', '--sim-bogus 1');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--sim-opts: unknown simulator option --sim-bogus/);
    assert.equal(existsSync(out), false, 'nothing was started or written');
  });

  test('a run in which no candidate started exits 3 and says so; one that measured exits 0', { timeout: 120_000 }, () => {
    // Every candidate fails to start: the simulated vLLM refuses a context longer than the model's.
    const broken = join(dir, 'broken.plan.yaml');
    writeFileSync(broken, PLAN.replace('max_model_len: 1024', 'max_model_len: 10000000'));
    const out = join(dir, 'nothing');
    const r = cli('run', broken, '--target', 'sim', '--out', out, '--quiet', '--strategy', 'grid');
    assert.equal(r.status, EXIT_NOTHING_MEASURED, r.stderr);
    assert.equal(EXIT_NOTHING_MEASURED, 3);
    assert.match(r.stderr, /error: nothing was measured: no trial of any candidate completed/);
    assert.match(readFileSync(join(out, 'rows.jsonl'), 'utf8'), /max_model_len/, 'the failed rows are kept, with why');
    const ok = cli('run', plan, '--target', 'sim', '--out', join(dir, 'ok'), '--quiet', '--strategy', 'grid', '--repeats', '0');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(RUN_HELP, /3 the run finished but measured nothing/);
  });
});
