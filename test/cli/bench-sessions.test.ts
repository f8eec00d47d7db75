// Multi-turn sessions with think time through `autobench bench` against a simulated SGLang server: each session's turns
// in order, each later turn sent its think time after the previous answer ended (the client's lateness small), the
// prefix-cache hits the server reports rising with the turn, and per-turn TTFT and session goodput in the JSON line;
// a Mooncake trace with session fields replays each session as one conversation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runBench } from '../../src/cli/bench';
import { withSim } from '../support/sim';

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'autobench-bench-sessions-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

function io(): { out: NodeJS.WriteStream; err: NodeJS.WriteStream; err_: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  let e = '';
  out.resume();
  err.on('data', (d: Buffer) => (e += d.toString()));
  return { out: out as unknown as NodeJS.WriteStream, err: err as unknown as NodeJS.WriteStream, err_: () => e };
}

describe('autobench bench: multi-turn sessions with think time', () => {
  test('turns in order per session, think time honoured, cache hits rising with the turn, per-turn TTFT and session goodput', { timeout: 90_000 }, async () => {
    await withSim('sglang', ['--model-path', 'Qwen/Qwen3-8B', '--enable-cache-report', '--sim-speed', '20'], async (s) => {
      const out = join(dir, 'sessions.jsonl');
      const a = io();
      const argv = ['--backend', 'sglang-oai-chat', '--base-url', s.url, '--tokenizer', 'autobench-sim', '--dataset-name', 'generated-shared-prefix', '--gsp-num-groups', '4', '--gsp-prompts-per-group', '4', '--gsp-system-prompt-len', '512', '--gsp-question-len', '64', '--gsp-output-len', '16', '--gsp-num-turns', '3', '--gsp-turn-delay-ms', '150', '--gsp-turn-delay-cv', '0', '--request-rate', '20', '--goodput', 'ttft:5000', '--seed', '5', '--output-file', out, '--output-details', '--disable-tqdm'];
      assert.equal(await runBench(argv, a, {}), 0, a.err_());
      const line = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, unknown>;
      const ss = line.sessions as { sessions: number; completed_sessions: number; good_sessions: number; session_goodput: number; turns: Array<{ turn: number; requests: number; p50_ttft_ms: number; cache_hit_fraction: number; p99_late_ms: number | null }> };
      assert.deepEqual([ss.sessions, ss.completed_sessions, ss.good_sessions], [16, 16, 16], JSON.stringify(ss));
      assert.ok(ss.session_goodput > 0);
      assert.deepEqual(ss.turns.map((t) => [t.turn, t.requests]), [[0, 16], [1, 16], [2, 16]]);
      for (const t of ss.turns) assert.ok(t.p50_ttft_ms > 0, JSON.stringify(t));
      // The history of a session is cached by its next turn: the hit share rises turn by turn.
      const hits = ss.turns.map((t) => t.cache_hit_fraction);
      assert.ok(hits[1]! > hits[0]! && hits[2]! > hits[1]!, JSON.stringify(hits));
      // Each later turn left the client at most a few ms after its think time ran out.
      for (const t of ss.turns.slice(1)) assert.ok(t.p99_late_ms !== null && t.p99_late_ms < 20, JSON.stringify(t));
      assert.match(a.err_(), /3 turns with 150 ms mean think time \(cv 0\)/);
      // Two think times of 150 ms in every session: the run cannot be shorter than that.
      assert.ok((line.duration as number) >= 0.3, String(line.duration));
    });
  });

  test('a Mooncake trace with session fields: each session replayed as one conversation, its later turns after their delay, with their own lengths', { timeout: 90_000 }, async () => {
    await withSim('sglang', ['--model-path', 'Qwen/Qwen3-8B', '--enable-cache-report', '--sim-speed', '20'], async (s) => {
      const trace = join(dir, 'sessions.jsonl');
      const lines: string[] = [];
      for (let k = 0; k < 6; k++) {
        lines.push(JSON.stringify({ session_id: `s${k}`, timestamp: k * 50, input_length: 600, output_length: 12, hash_ids: [k, 100 + k] }));
        lines.push(JSON.stringify({ session_id: `s${k}`, delay: 120, input_length: 40, output_length: 8, hash_ids: [] }));
        lines.push(JSON.stringify({ session_id: `s${k}`, delay: 120, input_length: 40, output_length: 20, hash_ids: [] }));
      }
      writeFileSync(trace, `${lines.join('\n')}\n`);
      const out = join(dir, 'mooncake.jsonl');
      const a = io();
      const argv = ['--backend', 'sglang-oai-chat', '--base-url', s.url, '--tokenizer', 'autobench-sim', '--dataset-name', 'mooncake', '--dataset-path', trace, '--seed', '1', '--output-file', out, '--output-details', '--disable-tqdm'];
      assert.equal(await runBench(argv, a, {}), 0, a.err_());
      assert.match(a.err_(), /mooncake: 6 sessions, 18 turns/);
      const line = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, unknown>;
      const ss = line.sessions as { sessions: number; completed_sessions: number; turns: Array<{ turn: number; requests: number; cache_hit_fraction: number; p99_late_ms: number | null }> };
      assert.deepEqual([ss.sessions, ss.completed_sessions], [6, 6]);
      assert.deepEqual(ss.turns.map((t) => [t.turn, t.requests]), [[0, 6], [1, 6], [2, 6]]);
      for (const t of ss.turns.slice(1)) assert.ok(t.p99_late_ms !== null && t.p99_late_ms < 20, JSON.stringify(t));
      assert.ok(ss.turns[1]!.cache_hit_fraction > ss.turns[0]!.cache_hit_fraction, JSON.stringify(ss.turns));
      // Each turn asked for its own output length: 12 + 8 + 20 tokens per session.
      assert.equal(line.total_output_tokens, 6 * (12 + 8 + 20));
      assert.ok((line.duration as number) >= 0.24, String(line.duration));
    });
  });
});
