// Issue 26 on the simulated engine: the rate search closes within qps.rel_tolerance (2% by default), every launch's first
// measured trial follows a warm-up of the fresh server, and a search round that contradicts an earlier verdict on the launch
// is measured again (both rows kept, the first marked superseded) — planted here through a resumed run's recorded row.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../src/runner';
import { cleanup, planYaml, readRowsFile, runOnSim, tempDir } from '../support/runner';

type Trial = { mode?: string; rate?: number | 'inf'; round?: number; key?: string; superseded?: boolean; launch_warmup_requests?: number };
const trialOf = (r: { trial?: unknown }): Trial => (r.trial ?? {});

interface Manifest {
  frameworks: Record<string, { brackets?: Record<string, { best: number | null; lowestFail: number | null; closed: boolean; note: string }>; searches?: Record<string, string> }>;
}
const manifestOf = (outDir: string): Manifest => JSON.parse(readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as Manifest;

describe('rate search precision on the simulated engine', () => {
  test('the search closes within 2% by default, and each launch is warmed up before its first measured trial', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    try {
      const plan = planYaml({
        dataset: 'num_prompts: 8\nscenario_names: [chat, short]\ninput_len: [256, 64]\noutput_len: [32, 16]',
        // A tolerance in req/s too small to matter: the relative one (default 2%) closes the bracket.
        benchmark: 'request_rates: null\nqps: {lower: 1, upper: 64, tolerance: 0.001}',
        sla: 'max_p50_ttft_ms: 400\nmin_success_rate: 0.99',
        frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [8]' },
      });
      const events: RunEvent[] = [];
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', repeats: 0, onEvent: (e) => events.push(e) });
      assert.equal(run.result.status, 'completed');
      const brackets = Object.entries(manifestOf(run.outDir).frameworks.vllm?.brackets ?? {});
      assert.equal(brackets.length, 4, 'two candidates x two scenarios');
      for (const [label, b] of brackets) {
        assert.equal(b.closed, true, `${label}: ${b.note}`);
        assert.ok(b.best !== null && b.lowestFail !== null, label);
        assert.ok(b.lowestFail - b.best <= 0.02 * b.best + 1e-9, `${label}: ${b.note}`);
        assert.match(b.note, /within 2% of/, label);
      }

      // Per launch (one per candidate here), the rows in the order they were measured: only the first has the warm-up.
      const rows = readRowsFile(run.outDir).filter((r) => r.framework === 'vllm' && trialOf(r).mode === 'search');
      const candidates = [...new Set(rows.map((r) => String(r.candidate_id)))];
      assert.equal(candidates.length, 2);
      for (const cand of candidates) {
        const mine = rows.filter((r) => r.candidate_id === cand);
        const warmed = mine.filter((r) => trialOf(r).launch_warmup_requests !== undefined);
        assert.equal(warmed.length, 1, `${cand}: one warmed trial per launch, not one per scenario or round`);
        assert.equal(warmed[0], mine[0], `${cand}: the launch's first measured trial`);
        assert.ok((trialOf(mine[0] ?? {}).launch_warmup_requests ?? 0) >= 8, 'at least the plan\'s prompts');
      }
      // The events say the same: after each server comes up, a warm-up is logged before its first trial starts.
      let launches = 0;
      for (let i = 0; i < events.length; i++) {
        const e = events[i];
        if (e?.type !== 'server' || e.state !== 'ready') continue;
        launches++;
        const start = events.findIndex((x, j) => j > i && x.type === 'trial-start');
        const warm = events.findIndex((x, j) => j > i && x.type === 'log' && /warming the fresh server up/.test(x.message));
        assert.ok(start > 0 && warm > 0 && warm < start, `launch ${launches}: warm-up (event ${warm}) before the first trial (event ${start})`);
      }
      assert.equal(launches, 2);
    } finally {
      cleanup(dir);
    }
  });

  test('a search round that contradicts a recorded verdict of the launch is measured again; resume replays both rows', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    try {
      const outDir = path.join(dir, 'run');
      const plan = planYaml({
        dataset: 'num_prompts: 8\nscenario_names: [chat]\ninput_len: [256]\noutput_len: [32]',
        benchmark: 'request_rates: [2]\nqps: {lower: 1, upper: 64, max_rounds: 4}',
        sla: 'max_p50_ttft_ms: 400\nmin_success_rate: 0.99',
        frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' },
      });
      const first = await runOnSim(plan, { outDir, skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(first.result.status, 'completed');
      const rowsFile = path.join(outDir, 'rows.jsonl');
      const before = readRowsFile(outDir);
      const fixed = before.find((r) => trialOf(r).mode === 'fixed');
      assert.ok(fixed && (fixed.sla as { passed: boolean }).passed, 'the fixed point at 2 req/s passes');
      assert.equal(before.some((r) => trialOf(r).superseded), false, 'a consistent run rechecks nothing');
      // Plant a non-monotone verdict: the fixed point at 2 req/s recorded as failing, and the search not yet run.
      (fixed.sla as { passed: boolean }).passed = false;
      writeFileSync(rowsFile, `${JSON.stringify(fixed)}\n`);

      const resumed = await runOnSim(plan, { outDir, resume: true, skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(resumed.result.status, 'completed');
      const search = readRowsFile(outDir).filter((r) => trialOf(r).mode === 'search');
      const trace = JSON.stringify(search.map((r) => [trialOf(r).round, trialOf(r).rate, (r.sla as { passed: boolean }).passed, trialOf(r).superseded ?? false]));
      const superseded = search.filter((r) => trialOf(r).superseded === true);
      // The first search round that passes over 2 req/s contradicts the planted fail; its recheck passes too (the server is
      // well over 2 req/s), which discredits the planted verdict: later passes are not measured again (noise aside).
      const firstPass = search.find((r) => (r.sla as { passed: boolean }).passed && (trialOf(r).rate as number) > 2);
      assert.ok(firstPass && trialOf(firstPass).superseded === true, `the first pass over 2 req/s is superseded: ${trace}`);
      assert.ok(superseded.length >= 1 && superseded.length <= 2, trace);
      for (const r of superseded) {
        const again = search.find((x) => trialOf(x).round === (trialOf(r).round ?? 0) + 1);
        assert.equal(trialOf(again ?? {}).rate, trialOf(r).rate, `the next round measures the same rate: ${trace}`);
        assert.equal(trialOf(again ?? {}).superseded, undefined, trace);
      }
      const note = Object.values(manifestOf(outDir).frameworks.vllm?.searches ?? {})[0] ?? '';
      assert.match(note, /\d round(s)? measured again \(the verdict contradicted an earlier one\)/);

      // Resumed once more, the search replays every round (the recheck included) from the rows: nothing is measured.
      const keys = readRowsFile(outDir).map((r) => trialOf(r).key);
      const replay = await runOnSim(plan, { outDir, resume: true, skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(replay.result.status, 'completed');
      assert.deepEqual(readRowsFile(outDir).map((r) => trialOf(r).key), keys);
      assert.ok(replay.events.filter((e) => e.type === 'trial-end').every((e) => e.type === 'trial-end' && e.resumed));
      // ... and no server is started for it: the ledger replays the search with the fixed point's verdict (ledger.ts).
      assert.deepEqual(replay.events.filter((e) => e.type === 'server' && e.state === 'ready'), []);
    } finally {
      cleanup(dir);
    }
  });
});
