// `autobench run --strategy grid|adaptive` and `--force FRAMEWORK:ID`: parsed into RunOptions, a bad value a usage
// error (exit 2) naming what it takes before anything is read or started, and a plan's bad search.strategy exit 1.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/cli/errors';
import { REPO } from '../support/fixtures';
import { CLI, cli, runOptions as options } from '../support/run-cli';
import { planYaml } from '../support/runner';

const PLAN = join(REPO, 'configs', 'examples', 'demo.plan.yaml');

describe('run --strategy and --force', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('--strategy grid|adaptive goes to RunOptions.strategy; absent, the plan decides', () => {
    assert.equal(options('--strategy', 'adaptive').strategy, 'adaptive');
    assert.equal(options('--strategy=grid').strategy, 'grid');
    assert.equal('strategy' in options(), false);
  });

  test('a bad --strategy is a usage error naming grid and adaptive', () => {
    for (const bad of ['fast', 'Adaptive', '']) {
      assert.throws(() => options('--strategy', bad), (e: unknown) => e instanceof UsageError && e.message === `--strategy must be grid or adaptive, got '${bad}'`, bad);
    }
  });

  test('--force is repeatable and takes comma lists: FRAMEWORK:ID or a bare ID', () => {
    assert.deepEqual(options('--force', 'vllm:c3', '--force', 'c1').force, ['vllm:c3', 'c1']);
    assert.deepEqual(options('--force', 'vllm:c3,sglang:baseline').force, ['vllm:c3', 'sglang:baseline']);
    assert.equal('force' in options(), false);
  });

  test('a bad --force is a usage error naming the shape', () => {
    const usage = (message: string) => (e: unknown) => e instanceof UsageError && e.message === message;
    assert.throws(() => options('--force', 'vlm:c3'), usage("--force: unknown framework 'vlm' in 'vlm:c3'; give FRAMEWORK:ID with one of sglang, vllm, tensorrt_llm, tokenspeed, or just ID"));
    assert.throws(() => options('--force', 'vllm:'), usage("--force: 'vllm:' is not a candidate; give FRAMEWORK:ID (e.g. vllm:c3) or just ID (e.g. c3)"));
    assert.throws(() => options('--force', 'c1,,c2'), UsageError);
  });

  test('the built CLI: bad values exit 2 before any work, the help names both options', () => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
    const dir = mkdtempSync(join(tmpdir(), 'autobench-strategy-'));
    dirs.push(dir);
    const bad = cli('run', PLAN, '--strategy', 'fast', '--out', join(dir, 'run'));
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /--strategy must be grid or adaptive, got 'fast'/);
    assert.doesNotMatch(bad.stderr, /\n\s+at .+:\d+/);
    assert.equal(existsSync(join(dir, 'run')), false, 'nothing was created');
    const force = cli('run', PLAN, '--force', 'nope:c1', '--out', join(dir, 'run'));
    assert.equal(force.status, 2, force.stderr);
    assert.match(force.stderr, /--force: unknown framework 'nope'/);
    const help = cli('run', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /\[--strategy grid\|adaptive\] \[--force FW:ID\]\.\.\./);
    assert.match(help.stdout, /--strategy S {10}grid: every candidate/);
    assert.match(help.stdout, /\(default: the plan's search\.strategy, else (grid|adaptive)\)/);
    assert.match(help.stdout, /--force FW:ID {9}measure this candidate even if adaptive would skip it/);
  });

  test("the built CLI: a plan's bad search.strategy cannot run (exit 1), with the allowed values", () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-strategy-'));
    dirs.push(dir);
    const plan = join(dir, 'bad.plan.yaml');
    writeFileSync(plan, planYaml({ frameworks: { vllm: 'enabled: true\nserver_command: vllm serve' }, search: 'max_candidates_per_framework: 2\nstrategy: fastest' }));
    const r = cli('run', plan, '--out', join(dir, 'run'));
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /search\.strategy must be grid or adaptive, got 'fastest'/);
  });
});
