// `autobench run` with multi-turn sessions on the simulator: a generated-shared-prefix plan with 3 turns and think time
// on the chat endpoint; each row carries its sessions: every conversation completed, per-turn TTFT, the server's
// prefix-cache hits rising turn by turn, and the client's lateness against the think time small.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { validateJson } from '../../src/core/config/schema-check';
import { cleanup, planYaml, runOnSim, tempDir } from '../support/runner';

describe('run plans with multi-turn sessions on the simulator', () => {
  test('rows carry each trial\'s sessions: turns in order, TTFT per turn, cache hits rising with the turn', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const sglang = 'base_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 8192\n  enable_cache_report: true';
      const dataset = 'kind: generated-shared-prefix\nnum_prompts: 16\nscenario_names: [agent]\ninput_len: [576]\noutput_len: [32]\ngsp:\n  num_groups: 4\n  prompts_per_group: 4\n  system_prompt_len: 512\n  question_len: 64\n  output_len: 32\n  num_turns: 3\n  turn_delay_ms: 100';
      const plan = planYaml({ dataset, frameworks: { sglang }, benchmark: 'endpoint: /v1/chat/completions\nrequest_rates: [4]', search: 'max_candidates_per_framework: 1' });
      const run = await runOnSim(plan, { outDir: path.join(dir, 'run'), skipSmoke: true, strategy: 'grid', repeats: 0 });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const rows = run.result.rows.filter((r) => r.framework === 'sglang');
      assert.ok(rows.length > 0);
      for (const r of rows) {
        assert.equal(r.status, 'ok', r.failure_reason ?? '');
        assert.deepEqual(validateJson('result-row', r), []);
        const s = (r as unknown as { sessions: { sessions: number; completed_sessions: number; turns: Array<{ turn: number; requests: number; p50_ttft_ms: number; cache_hit_fraction: number; p99_late_ms: number | null }> } }).sessions;
        assert.ok(s.sessions >= 16 && s.completed_sessions === s.sessions, JSON.stringify(s));
        assert.deepEqual(s.turns.map((t) => t.turn), [0, 1, 2]);
        assert.ok(s.turns.every((t) => t.requests === s.sessions && t.p50_ttft_ms > 0), JSON.stringify(s.turns));
        const hits = s.turns.map((t) => t.cache_hit_fraction);
        assert.ok(hits[1]! > hits[0]! && hits[2]! > hits[1]!, JSON.stringify(hits));
        for (const t of s.turns.slice(1)) assert.ok(t.p99_late_ms !== null && t.p99_late_ms < 20, JSON.stringify(t));
      }
    } finally {
      cleanup(dir);
    }
  });
});
