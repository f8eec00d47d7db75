import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { newSearch, nextRate, recordRound } from '../../src/runner/rate-search';
import { cleanup, cliBundle, groupAlive, killGroups, planYaml, readRowsFile, serverPids, simBundle, tempDir } from '../support/runner';

let cli = '';
let simJs = '';

before(async () => {
  [cli, simJs] = await Promise.all([cliBundle(), simBundle()]);
});

interface Done {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], cwd: string): { child: ChildProcess; done: Promise<Done> } {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, AUTOBENCH_SIM_JS: simJs, AUTOBENCH_NODE: process.execPath, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Done>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Resolves once `cond` holds (checked on every output chunk and file change), or rejects at the deadline. */
async function until(cond: () => boolean, child: ChildProcess, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  await new Promise<void>((resolve, reject) => {
    const tick = (): void => {
      if (cond()) return finish(resolve);
      if (Date.now() > deadline) return finish(() => reject(new Error(`timed out waiting for ${what}`)));
      if (child.exitCode !== null) return finish(() => reject(new Error(`the run ended before ${what}`)));
    };
    const timer = setInterval(tick, 25);
    const finish = (f: () => void): void => {
      clearInterval(timer);
      f();
    };
  });
}

const PLAN = planYaml({
  dataset: 'num_prompts: 12\nscenario_names: [chat, long]\ninput_len: [128, 128]\noutput_len: [32, 300]',
  benchmark: 'framework_set: [sglang, vllm]\nrequest_rates: null\nqps: {lower: 0, upper: 40, tolerance: 1, max_rounds: 3}',
  sla: 'max_p50_e2e_ms: 1200',
  frameworks: {
    sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\nsearch_space:\n  max_running_requests: [4]',
    vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [4]',
  },
});

const keyOf = (r: Record<string, unknown>) => (r.trial as { key: string }).key;

describe('autobench run (CLI)', () => {
  for (const strategy of ['grid', 'adaptive']) {
    test(`${strategy}: kill -9 in the middle, then --resume: no finished row lost or measured again, leftover servers stopped`, { timeout: 120_000 }, async () => {
      const dir = tempDir();
      const out = path.join(dir, 'run');
      const plan = path.join(dir, 'resume.plan.yaml');
      writeFileSync(plan, PLAN);
      let pids: number[] = [];
      try {
        const rowsFile = path.join(out, 'rows.jsonl');
        const first = start(['run', plan, '--target', 'sim', '--out', out, '--sim-speed', '20', '--strategy', strategy], dir);
        await until(() => existsSync(rowsFile) && readRowsFile(out).filter((r) => r.status === 'ok').length >= 3, first.child, 60_000, 'three measured rows');
        first.child.kill('SIGKILL');
        const killed = await first.done;
        assert.equal(killed.signal, 'SIGKILL');
        pids = serverPids(out);
        // A server the killed runner was stopping is still exiting on its TERM for a moment: only a group alive after
        // that is one the resumed run has to stop (CI once killed the runner mid-stop, and the group was gone by then).
        await new Promise((r) => setTimeout(r, 1500));
        const leftBehind = pids.filter(groupAlive);
        const before = readFileSync(rowsFile, 'utf8');
        const beforeKeys = before.split('\n').filter(Boolean).map((l) => keyOf(JSON.parse(l) as Record<string, unknown>));
        type Stop = { framework: string; candidate: string; scenario: string; rate: number };
        const stoppedOf = () => (JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { search_strategy?: { stopped?: Stop[] } }).search_strategy?.stopped ?? [];
        const stoppedBefore = stoppedOf();
        // A row half-written when the process died.
        appendFileSync(rowsFile, '{"framework": "sglang", "status": "o');

        const second = start(['run', plan, '--target', 'sim', '--out', out, '--sim-speed', '20', '--strategy', strategy, '--resume'], dir);
        const res = await second.done;
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stderr, new RegExp(`resumed: ${beforeKeys.length} finished rows kept`));
        assert.match(res.stdout, /report: .*summary\.md/);

        // Nothing the first run finished was lost, rewritten or measured again.
        const after = readFileSync(rowsFile, 'utf8');
        assert.ok(after.startsWith(before), 'the first run rows are still there, byte for byte');
        const rows = readRowsFile(out);
        const keys = rows.map(keyOf);
        assert.equal(new Set(keys).size, keys.length, `a trial was measured twice: ${keys.join(', ')}`);
        for (const k of beforeKeys) assert.equal(keys.filter((x) => x === k).length, 1, k);
        assert.ok(keys.length > beforeKeys.length, 'the resumed run measured what was left');
        assert.equal(readFileSync(path.join(out, 'rows.jsonl.torn'), 'utf8'), '{"framework": "sglang", "status": "o');

        // Every search ran to its end: replaying its verdicts asks for no further round (the grid's searches start at
        // the plan's bounds; adaptive ones at the predicted knee, and some candidates are skipped by prediction).
        const cfg = { lower: 0, upper: 40, tolerance: 1, relTolerance: 0.02, maxRounds: 3 };
        for (const fw of strategy === 'grid' ? ['sglang', 'vllm'] : []) {
          for (const cand of ['baseline', 'c1']) {
            for (const sc of ['chat', 'long']) {
              const rounds = rows.filter((r) => r.framework === fw && r.candidate_id === cand && r.scenario === sc && (r.trial as { mode: string }).mode === 'search').sort((a, b) => ((a.trial as { round: number }).round) - (b.trial as { round: number }).round);
              const state = newSearch();
              for (const r of rounds) {
                assert.equal(nextRate(cfg, state), (r.trial as { rate: number }).rate, `${fw} ${cand} ${sc}: the search asked for this round's rate`);
                recordRound(state, (r.trial as { rate: number }).rate, (r.sla as { passed: boolean }).passed);
              }
              assert.ok(rounds.length > 0, `${fw} ${cand} ${sc} has rows`);
              assert.equal(nextRate(cfg, state), undefined, `${fw} ${cand} ${sc} search is complete`);
            }
          }
        }
        const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { status: string; resumes: unknown[]; live_servers: unknown[]; search_strategy: { name: string; measured: string[] } };
        assert.equal(manifest.status, 'completed');
        assert.equal(manifest.search_strategy.name, strategy);
        assert.equal(manifest.resumes.length, 1);
        // Adaptive searches stopped at their floor before the kill are still recorded as stopped, each once.
        const stoppedAfter = stoppedOf();
        for (const st of stoppedBefore) assert.ok(stoppedAfter.some((x) => JSON.stringify(x) === JSON.stringify(st)), `stop kept: ${JSON.stringify(st)}`);
        assert.equal(new Set(stoppedAfter.map((x) => `${x.framework} ${x.candidate} ${x.scenario}`)).size, stoppedAfter.length);
        assert.deepEqual(manifest.live_servers, []);
        // The server the killed runner left behind (when it died mid-candidate) was stopped by the resumed one.
        if (leftBehind.length) assert.match(res.stderr, /stopping a server the interrupted run left behind: process group \d+/);
        for (const p of pids) assert.equal(groupAlive(p), false, `server group ${p} survived`);
      } finally {
        killGroups([...pids, ...serverPids(out)]);
        cleanup(dir);
      }
    });
  }

  test('usage errors, a run directory in use, and a plan that cannot run', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const help = await start(['run', '--help'], dir).done;
      assert.equal(help.code, 0);
      assert.match(help.stdout, /usage: autobench run PLAN/);
      const plan = path.join(dir, 'p.plan.yaml');
      writeFileSync(plan, PLAN);
      const tier = await start(['run', plan, '--tier', '7'], dir).done;
      assert.equal(tier.code, 2);
      assert.match(tier.stderr, /--tier must be 1, 2 or 3/);
      const out = path.join(dir, 'used');
      // A directory that already holds a run is only continued with --resume.
      mkdirSync(out);
      writeFileSync(path.join(out, 'manifest.json'), '{}');
      const used = await start(['run', plan, '--out', out], dir).done;
      assert.equal(used.code, 1);
      assert.match(used.stderr, /already holds a run; pass --resume/);
      assert.equal(statSync(path.join(out, 'manifest.json')).size, 2, 'the existing run was not touched');
      const broken = path.join(dir, 'broken.plan.yaml');
      writeFileSync(broken, PLAN.replace('max_p50_e2e_ms: 1200', 'max_p99_ttft_ms: 10'));
      const bad = await start(['run', broken, '--out', path.join(dir, 'x')], dir).done;
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /the plan cannot run:\n {2}sla\.max_p99_ttft_ms: sla: 'max_p99_ttft_ms' is deprecated/);
    } finally {
      cleanup(dir);
    }
  });
});
