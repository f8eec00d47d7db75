// The report's "Not selected" lines: one per candidate × scenario (not one per rate-search round), with the best
// passing rate, the first failing rate above it, that trial's reason and a next step for that reason; the same
// lines in the Markdown (byte for byte against a fixture), the CSV and the model the summary panel renders.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_KNOBS, PREFILL_KNOBS } from '../../../src/core/results/advice';
import { buildReport } from '../../../src/core/results/report';
import type { ReportModel } from '../../../src/core/results/report-model';
import { renderReportCsv, renderReportMarkdown } from '../../../src/core/results/report-write';
import { readRows } from '../../../src/core/results/rows';
import { builtinFlag, FRAMEWORKS } from '../../../src/core/frameworks';

const FIXTURE = join(__dirname, 'fixtures', 'rate-search.jsonl');
const EXPECTED = join(__dirname, 'fixtures', 'rate-search.not-selected.expected.md');

function model(text = readFileSync(FIXTURE, 'utf8')): ReportModel {
  const read = readRows(text, 'rows.jsonl');
  assert.ok(read.ok, read.ok ? '' : read.message);
  return buildReport(read.rows, { rowsFile: 'rows.jsonl' });
}

/** The Markdown's "Not selected" section, up to the next heading. */
function section(md: string): string {
  const from = md.indexOf('## Not selected');
  return md.slice(from, md.indexOf('\n## ', from + 1) + 1);
}

describe('report: not-selected candidates, grouped', () => {
  test('one line per candidate × scenario with its bracket, reason and next step; the selected bests are not listed', () => {
    const lines = model().notSelected.map((n) => [n.framework, n.candidate, n.category, n.bestPassingRate, n.firstFailingRate, n.next]);
    assert.deepEqual(lines, [
      ['sglang', 'sat', 'sla-failing', 8, 12, 'fix-parameter'],
      ['sglang', 'invalid', 'failed', 4, 8, 'retry'],
      ['sglang', 'oom', 'oom', null, null, 'fix-parameter'],
      ['vllm', 'ttft', 'sla-failing', 4, 6, 'lower-concurrency'],
      // 8 passed in the search but failed its repeat: not a passing rate.
      ['vllm', 'tpot', 'sla-failing', 1, 8, 'lower-concurrency'],
    ]);
  });

  test('the next step names the reason: TTFT -> prefills, TPOT -> batch, saturated -> capacity, invalid -> measure again, launch -> log tail', () => {
    const by = new Map(model().notSelected.map((n) => [n.candidate, n]));
    assert.match(by.get('ttft')?.advice ?? '', /fewer concurrent prefills or use chunked prefill .*--max-num-batched-tokens/);
    assert.match(by.get('tpot')?.advice ?? '', /smaller batch \/ max running requests \(--max-num-seqs\)/);
    assert.match(by.get('sat')?.advice ?? '', /did not keep pace/);
    assert.match(by.get('invalid')?.advice ?? '', /measure again on a quieter machine/);
    assert.equal(by.get('invalid')?.reason, "invalid measurement: client-bound: the client's event loop lagged 41 ms at p99 (limit 20 ms)");
    const oom = by.get('oom');
    assert.equal(oom?.reason, 'out of memory at startup');
    assert.match(oom?.advice ?? '', /The server's log ends: torch\.OutOfMemoryError: CUDA out of memory\. .*\(full log: servers\/sglang-oom\/server\.log\)$/);
  });

  test('the Markdown section, byte for byte: no HTML entities, rates in their own columns', () => {
    const md = section(renderReportMarkdown(model()));
    assert.equal(md, readFileSync(EXPECTED, 'utf8'));
    assert.doesNotMatch(md, /&gt;|&lt;|&amp;/);
  });

  test('CSV: every row of a listed candidate × scenario carries its category and next step; the selected ones carry none', () => {
    const m = model();
    const lines = renderReportCsv(m).trimEnd().split('\r\n').slice(1);
    const cells = lines.map((l) => l.split(','));
    const head = renderReportCsv(m).split('\r\n')[0]?.split(',') ?? [];
    const at = (name: string) => head.indexOf(name);
    const of = (cand: string) => cells.filter((c) => c[at('candidate_id')] === cand).map((c) => `${c[at('category')]}/${c[at('next_step')]}`);
    assert.deepEqual(of('ttft'), Array(5).fill('sla-failing/lower concurrency'));
    assert.deepEqual(of('winner'), Array(5).fill('/'));
    assert.equal(lines.length, m.candidates.length);
  });

  test('every row of the input belongs to exactly one listed or selected candidate × scenario', () => {
    const m = model();
    const listed = m.notSelected.flatMap((n) => n.rows);
    assert.equal(new Set(listed).size, listed.length);
    for (const n of m.notSelected) assert.ok(n.row !== null && n.rows.includes(n.row), `${n.candidate}: its first failing row is one of its rows`);
  });

  test('the knobs named in next steps are real flags of each framework', () => {
    for (const fw of FRAMEWORKS) {
      for (const flag of [...(PREFILL_KNOBS[fw] ?? []), ...(BATCH_KNOBS[fw] ?? [])]) {
        assert.ok(builtinFlag(fw, flag.replace(/^--/, '').replace(/-/g, '_')), `${fw} ${flag}`);
      }
    }
  });
});
