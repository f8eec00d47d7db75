import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RunDir, trialKey } from '../../src/runner/artifacts';
import type { ResultRow } from '../../src/core/results/rows';
import { cleanup, tempDir } from '../support/runner';

const row = (id: string): ResultRow => ({ framework: 'vllm', status: 'ok', candidate_id: id, trial: { rate: 1, concurrency: null, round: 0 } });

describe('run directory', () => {
  test('a torn last line (killed mid-write) is cut off and kept aside; later rows start on a line of their own', () => {
    const dir = tempDir();
    try {
      const d = new RunDir(dir);
      d.appendRow(row('baseline'));
      appendFileSync(d.rowsFile, '{"framework": "vllm", "stat');
      const again = new RunDir(dir);
      assert.deepEqual(again.readRows().map((r) => r.candidate_id), ['baseline']);
      assert.equal(readFileSync(path.join(dir, 'rows.jsonl.torn'), 'utf8'), '{"framework": "vllm", "stat');
      again.appendRow(row('c1'));
      assert.deepEqual(again.readRows().map((r) => r.candidate_id), ['baseline', 'c1']);
      assert.equal(readFileSync(d.rowsFile, 'utf8').split('\n').filter(Boolean).length, 2);
    } finally {
      cleanup(dir);
    }
  });

  test('secret values and token-shaped strings never reach a file', () => {
    const dir = tempDir();
    try {
      const d = new RunDir(dir, ['s3cret-value-42']);
      d.appendRow({ ...row('baseline'), failure_reason: 'env had s3cret-value-42 and hf_abcdefghijklmnopqrstu' });
      d.writeJson('manifest.json', { note: 'HF_TOKEN=s3cret-value-42' });
      const all = readFileSync(d.rowsFile, 'utf8') + readFileSync(path.join(dir, 'manifest.json'), 'utf8');
      assert.doesNotMatch(all, /s3cret-value-42|hf_abcdefghijklmnopqrstu/);
      assert.match(all, /<redacted>/);
      assert.ok(!existsSync(path.join(dir, 'manifest.json.tmp-' + process.pid)));
    } finally {
      cleanup(dir);
    }
  });

  test('trial keys tell fixed points and search rounds apart', () => {
    const base = { framework: 'sglang', candidateId: 'c1', scenario: 'chat', concurrency: 8 };
    assert.equal(trialKey({ ...base, mode: 'fixed', rate: 'inf', round: 0 }), 'sglang|c1|chat|fixed|rate=inf|c=8');
    assert.equal(trialKey({ ...base, mode: 'search', rate: 4.5, round: 3 }), 'sglang|c1|chat|search|round=3|rate=4.5|c=8');
  });
});
