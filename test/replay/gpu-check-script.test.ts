// scripts/gpu-check.sh exercised without a GPU: on the simulated engines it must write a complete, labelled fixture set per engine that the replay accepts; its dry run starts nothing; it never writes simulated output into the committed fixtures.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { cliBundle, REPO, simBundle, tempDir } from '../support/runner';
import { fixtureSets, kindOf, replaySet } from './fixture-replay';

const SCRIPT = path.join(REPO, 'scripts/gpu-check.sh');

/** Every file under a folder, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? allFiles(path.join(dir, n)) : [path.join(dir, n)]));
}
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function runScript(args: string[], env: Record<string, string> = {}, timeoutMs = 540_000): Promise<{ code: number | null; out: string }> {
  const r = spawnSync('bash', [SCRIPT, ...args], {
    env: { ...process.env, AUTOBENCH_CLI: await cliBundle(), AUTOBENCH_SIM_JS: await simBundle(), AUTOBENCH_NODE: process.execPath, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The files every engine's set must hold when its server came up. */
const EVERY = ['SOURCE.md', 'expect.txt', 'version.txt', 'help.txt', 'startup.log', 'models.json', 'stream-completions.sse', 'stream-chat.sse', 'flush.txt', 'metrics.txt', 'shutdown.txt', 'requests.log', 'doctor.txt'];

describe('scripts/gpu-check.sh on the simulated engines', () => {
  test('--dry-run names every step and starts nothing', async () => {
    const parent = tempDir('gpu-check-dry-');
    dirs.push(parent);
    const out = path.join(parent, 'never');
    const r = await runScript(['--simulated', '--dry-run', '--out', out]);
    assert.equal(r.code, 0, r.out);
    for (const e of ['vllm', 'sglang', 'trtllm', 'tokenspeed']) assert.match(r.out, new RegExp(`== ${e} `));
    assert.match(r.out, /vllm serve --help=all/);
    assert.match(r.out, /VLLM_SERVER_DEV_MODE=1/);
    assert.match(r.out, /flush \/flush_cache/);
    assert.equal(existsSync(out), false, 'a dry run writes nothing');
  });

  test('refuses to put simulated output among the committed fixtures', async () => {
    const r = await runScript(['--simulated', '--engines', 'vllm', '--out', path.join(REPO, 'test/fixtures/engines')]);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /never mixed with real ones/);
  });

  test('a complete fixture set per engine, labelled simulated, that the replay accepts; no secret written', { timeout: 600_000 }, async () => {
    const out = tempDir('gpu-check-sim-');
    dirs.push(out);
    const secret = 'hf_h8SecretValueNeverWritten0123';
    const r = await runScript(['--simulated', '--out', out, '--run-engines', 'sglang', '--stop-grace', '20'], { HF_TOKEN: secret });
    assert.equal(r.code, 0, r.out);
    const sets = fixtureSets(out);
    assert.deepEqual(sets.map((d) => path.basename(path.dirname(d))).sort(), ['sglang', 'tokenspeed', 'trtllm', 'vllm']);
    for (const dir of sets) {
      const files = readdirSync(dir);
      for (const f of EVERY) assert.ok(files.includes(f), `${dir}: ${f} missing (has ${files.join(', ')})`);
      assert.equal(kindOf(dir), 'simulated', `${dir}: SOURCE.md must say simulated`);
      const source = readFileSync(path.join(dir, 'SOURCE.md'), 'utf8');
      assert.match(source, /- Host: /);
      assert.match(source, /- Date \(UTC\): /);
      assert.match(source, /- Version: `[^`]+`, read by `[^`]+`/);
      assert.match(source, /- Shutdown: exited [\d.]+ s after TERM/);
      assert.match(readFileSync(path.join(dir, 'shutdown.txt'), 'utf8'), /processes of the launch left 2 s later \(marker AUTOBENCH_GPU_CHECK_MARK\): 0/);
      const r2 = replaySet(dir);
      assert.deepEqual(r2.problems, [], r2.problems.join('\n'));
      for (const f of allFiles(dir)) assert.ok(!readFileSync(f, 'latin1').includes(secret), `${f} holds the HF_TOKEN value`);
    }
    const vllm = sets.find((d) => d.includes(`${path.sep}vllm${path.sep}`)) as string;
    assert.ok(existsSync(path.join(vllm, 'help-all.txt')), 'vLLM: --help=all captured as preflight does');
    assert.match(readFileSync(path.join(vllm, 'flush.txt'), 'utf8'), /^POST \/reset_prefix_cache \(idle server\)\nHTTP 200/);
    const ts = sets.find((d) => d.includes(`${path.sep}tokenspeed${path.sep}`)) as string;
    assert.ok(existsSync(path.join(ts, 'help-engine-args.txt')), 'TokenSpeed: the engine parser tried too');
    const sg = sets.find((d) => d.includes(`${path.sep}sglang${path.sep}`)) as string;
    assert.match(readFileSync(path.join(sg, 'SOURCE.md'), 'utf8'), /- Candidate run: exit 0/);
    assert.ok(existsSync(path.join(sg, 'run', 'rows.jsonl')), 'the one-candidate run left its rows');
    assert.match(readFileSync(path.join(vllm, 'SOURCE.md'), 'utf8'), /- Candidate run: not run \(not in --run-engines\)/);
  });
});
