// The trace-csv dataset: Azure-style and BurstGPT-style CSV traces read by their column names, rows due at their
// timestamps (relative to the first, stretched by the slowdown factor) with their own input and output lengths; rows
// without output left out; a file without the columns, or a bad cell, is an error naming the file and the line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorkload } from '../../../src/core/workload/build';
import { readTraceCsv } from '../../../src/core/workload/trace-csv';
import { SimTokenizer } from '../../../src/runner/sim-tokenizer';

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'autobench-trace-csv-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('trace-csv', () => {
  test('an Azure trace: date-time stamps to ms from the first, token columns by name', () => {
    const p = file('azure.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:15:51.0000000,879,0\n');
    const rows = readTraceCsv(p);
    assert.deepEqual(rows.map((r) => [Math.round(r.atMs), r.input, r.output]), [[0, 374, 44], [4315, 396, 109]]);
  });

  test('a BurstGPT trace: seconds, "Request tokens" / "Response tokens", rows out of order sorted', () => {
    const p = file('burst.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n12.5,ChatGPT,472,18,490,Conversation log\n5,GPT-4,1000,250,1250,Conversation log\n');
    assert.deepEqual(readTraceCsv(p), [{ atMs: 0, input: 1000, output: 250 }, { atMs: 7500, input: 472, output: 18 }]);
  });

  test('the workload: one row per request at its time x the slowdown, with its lengths; the first N with --num-prompts', () => {
    const p = file('w.csv', 'Timestamp,Request tokens,Response tokens\n0,300,20\n1,200,30\n3,100,40\n');
    const w = buildWorkload({ datasetName: 'trace-csv', datasetPath: p, numPrompts: 2, mooncakeSlowdownFactor: 2 }, new SimTokenizer());
    assert.equal(w.timed, true);
    assert.deepEqual(w.rows.map((r) => [r.arrivalMs, r.promptLen, r.outputLen]), [[0, 300, 20], [2000, 200, 30]]);
    assert.match(w.notes.join('\n'), /trace-csv: 2 of 3 trace rows over 1\.0 s replayed at their timestamps x 2/);
  });

  test('a file without the columns, or a bad cell, names the file and the line', () => {
    assert.throws(() => readTraceCsv(file('bad-head.csv', 'when,in,out\n1,2,3\n')), /bad-head\.csv:1: expected a header with a timestamp column/);
    assert.throws(() => readTraceCsv(file('bad-cell.csv', 'Timestamp,Request tokens,Response tokens\n1,20,3\nyesterday,20,3\n')), /bad-cell\.csv:3: expected a timestamp and two token counts/);
  });
});
