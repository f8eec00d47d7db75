// The report's benchmark command reproduces the trial it stands for: a run on the simulated engine, then the winner's
// server command started afresh on the simulator and the winner's benchmark command run against it as written (only
// the port is the test's) — its throughput and p50 TTFT land within the reported trial's intervals. Both at speed 1:
// at x5, x10 and x20 the run's own p50 TTFT came out 27%, 1.9-2.5x and ~5x above a speed-1 measurement of the same command.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { shlexSplit } from '../../src/core/candidates/shell';
import { buildReport } from '../../src/core/results/report';
import { readRows } from '../../src/core/results/rows';
import { freePort } from '../../src/runner/launch-env';
import { cleanup, planYaml, REPO, runOnSim, tempDir } from '../support/runner';

const CLI = path.join(REPO, 'dist/cli.js');

async function ready(url: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await fetch(`${url}/v1/models`).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > end) throw new Error(`${url}: not ready after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("the report's benchmark command", () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));

  test('run against a fresh simulated server, reproduces the reported trial within its intervals', { timeout: 300_000 }, async () => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: npm test builds it first');
    const d = tempDir();
    dirs.push(d);
    const text = planYaml({
      frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' },
      dataset: 'num_prompts: 64\nscenario_names: [chat]\ninput_len: [512]\noutput_len: [64]',
      benchmark: 'request_rates: null\nqps: {lower: 16, upper: 32, tolerance: 8, max_rounds: 2}',
      sla: 'max_p50_ttft_ms: 300\nmax_p50_tpot_ms: 40',
    });
    const { result } = await runOnSim(text, { outDir: path.join(d, 'run'), strategy: 'grid', skipSmoke: true, repeats: 0, simSpeed: 1 });
    const read = readRows(readFileSync(path.join(result.outDir, 'rows.jsonl'), 'utf8'), 'rows.jsonl');
    assert.ok(read.ok);
    const w = buildReport(read.rows, { rowsFile: 'rows.jsonl' }).winners[0];
    assert.ok(w, 'a winner');
    const row = result.rows.find((r) => r.benchmark_command === w.benchmarkCommand) as unknown as { trial: { rate: number }; intervals: Record<'request_throughput' | 'p50_ttft_ms', [number, number]>; metrics: Record<string, number> };
    assert.ok(row, "the winner's row");
    // Real-time rate (the run's x20 is not in it), and the address its server command listens on.
    assert.match(w.benchmarkCommand, new RegExp(`--request-rate ${row.trial.rate} `));
    assert.match(w.benchmarkCommand, /--base-url http:\/\/127\.0\.0\.1:8000 /);

    const port = await freePort();
    const [prog, ...args] = shlexSplit(w.serverCommand);
    const server = spawn(process.execPath, [CLI, 'sim', 'shim', prog as string, ...args], { env: { ...process.env, AUTOBENCH_SIM_OPTS: `--sim-speed 1 --sim-seed 1 --sim-port ${port}` }, stdio: 'ignore' });
    try {
      await ready(`http://127.0.0.1:${port}`, 60_000);
      const out = path.join(d, 'again.jsonl');
      const argv = shlexSplit(w.benchmarkCommand).map((a) => a.replace('http://127.0.0.1:8000', `http://127.0.0.1:${port}`));
      assert.equal(argv[0], 'autobench');
      const bench = spawnSync(process.execPath, [CLI, ...argv.slice(1), '--output-file', out], { encoding: 'utf8', timeout: 240_000 });
      assert.equal(bench.status, 0, bench.stderr);
      const again = JSON.parse(readFileSync(out, 'utf8').trim().split('\n').pop() as string) as { request_throughput: number; median_ttft_ms: number };
      const within = (x: number, [lo, hi]: [number, number]) => x >= lo && x <= hi;
      assert.ok(within(again.request_throughput, row.intervals.request_throughput), `reproduced ${again.request_throughput} req/s, reported ${row.metrics.request_throughput} (${row.intervals.request_throughput.join('–')})`);
      assert.ok(within(again.median_ttft_ms, row.intervals.p50_ttft_ms), `reproduced p50 TTFT ${again.median_ttft_ms} ms, reported ${row.metrics.p50_ttft_ms} (${row.intervals.p50_ttft_ms.join('–')})`);
    } finally {
      server.kill('SIGTERM');
    }
  });
});
