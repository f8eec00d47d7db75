// `autobench compare` against the playbook's compare_benchmark_results.py, one branch of the script per
// fixture (fixtures/compare-parity/NN-*.jsonl), byte for byte, plus how it opens and writes files.
//
// How the expected files were made: each cell and CSV field was written by hand from reading the
// reference's code path by path (BBuf/AI-Infra-Auto-Driven-SKILLS, skills/llm-serving-auto-benchmark/
// scripts/compare_benchmark_results.py: _get, _float, _bool, _fmt, _cell, _scenario, _server_command,
// _artifact_summary, best_by_framework_and_scenario, write_csv, render_markdown), with the P50 cells,
// the accept-length/pre-scheduler/cache columns and the CSV column names as CONTRACTS.md records
// them. Python's own format(x, '.2f') settled 1.995 -> '2.00' and 123456789.005 -> '123456789.00'.
// Cross-check: the newest reference text the code index holds (mean-TTFT tables, no accept-length
// columns) was rebuilt exactly (11,412 characters), patched outside this repository with only the
// changes CONTRACTS.md describes, and run on every fixture: its bytes equal these files. The exact
// current reference was not available, so that run checks Python's behaviour, not the newest text.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCompare } from '../../../src/cli/compare';
import { UsageError } from '../../../src/cli/errors';
import type { CliIO } from '../../../src/cli/validate';

const CORPUS = join(__dirname, 'fixtures', 'compare-parity');
const CASES = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .sort();

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'autobench-parity-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command in process; returns its exit status (thrown UsageErrors included) and stderr. */
function compare(argv: string[]): { code: number; err: string } {
  let err = '';
  const sink = (text: string) => ((err += text), true);
  const io = { out: { write: () => true }, err: { write: sink } } as unknown as CliIO;
  try {
    return { code: runCompare(argv, io), err };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return { code: e.exitCode, err: `${err}${e.message}\n` };
  }
}

function expected(name: string, ext: 'md' | 'csv'): string {
  return readFileSync(join(CORPUS, `${name}.expected.${ext}`), 'utf8');
}

describe('compare parity corpus: byte-identical to the reference script', () => {
  test('the corpus covers every branch it names', () => {
    assert.deepEqual(CASES, [
      '01-latency-fallback',
      '02-extra-metrics',
      '03-formatting',
      '04-booleans-and-status',
      '05-ranking-and-scenarios',
      '06-commands-artifacts',
      '07-no-winners',
      '08-empty',
      '09-out-of-schema',
    ]);
  });

  for (const name of CASES) {
    test(name, () => {
      const md = join(dir, name, 'summary.md');
      const csv = join(dir, name, 'summary.csv');
      const r = compare(['--input', join(CORPUS, `${name}.jsonl`), '--output', md, '--csv', csv]);
      assert.equal(r.code, 0, r.err);
      assert.equal(readFileSync(md, 'utf8'), expected(name, 'md'));
      assert.equal(readFileSync(csv, 'utf8'), expected(name, 'csv'));
    });
  }

  test('CRLF and CR line ends read as Python reads text (universal newlines)', () => {
    const text = readFileSync(join(CORPUS, '05-ranking-and-scenarios.jsonl'), 'utf8');
    for (const [label, eol] of [['crlf', '\r\n'], ['cr', '\r']] as const) {
      const input = join(dir, `${label}.jsonl`);
      writeFileSync(input, text.replace(/\n/g, eol));
      const r = compare(['--input', input, '--output', join(dir, `${label}.md`), '--csv', join(dir, `${label}.csv`)]);
      assert.equal(r.code, 0, r.err);
      assert.equal(readFileSync(join(dir, `${label}.md`), 'utf8'), expected('05-ranking-and-scenarios', 'md'));
      assert.equal(readFileSync(join(dir, `${label}.csv`), 'utf8'), expected('05-ranking-and-scenarios', 'csv'));
    }
  });
});

describe('compare parity: opening and writing files as pathlib and open() do', () => {
  const rows = () => {
    const input = join(dir, 'one.jsonl');
    writeFileSync(input, '{"framework": "f", "status": "ok", "sla": {"passed": true}}\n');
    return input;
  };

  test('a UTF-8 BOM is kept, so json.loads refuses line 1', () => {
    const input = join(dir, 'bom.jsonl');
    writeFileSync(input, '\ufeff{"framework": "f"}\n');
    const r = compare(['--input', input, '--output', join(dir, 'bom.md')]);
    assert.equal(r.code, 1);
    assert.equal(r.err, `${input}:1: invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)\n`);
    assert.equal(existsSync(join(dir, 'bom.md')), false);
  });

  test('bytes that are not UTF-8 stop the run with exit 1 and nothing written (open(encoding="utf-8") raises)', () => {
    const input = join(dir, 'latin1.jsonl');
    writeFileSync(input, Buffer.from('{"framework": "caf\xe9"}\n', 'latin1'));
    const r = compare(['--input', input, '--output', join(dir, 'latin1.md')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /not valid UTF-8/);
    assert.equal(existsSync(join(dir, 'latin1.md')), false);
  });

  test('paths are Path()s: a trailing slash and repeated slashes name the same file', () => {
    const out = join(dir, 'slashes');
    const r = compare(['--input', `${rows()}/`, '--output', `${out}//summary.md/`, '--csv', `${out}/./summary.csv/`]);
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(join(out, 'summary.md')));
    assert.ok(existsSync(join(out, 'summary.csv')));
  });

  test("an empty --output is given (Path('') is '.'), and writing to a folder fails with exit 1", () => {
    const r = compare(['--input', rows(), '--output=']);
    assert.equal(r.code, 1);
    assert.equal(r.err, 'cannot write .: is a directory\n');
    const folder = join(dir, 'a-folder');
    mkdirSync(folder, { recursive: true });
    assert.equal(compare(['--input', rows(), '--output', folder]).code, 1);
  });

  test("an empty --csv is still truthy in Python: the Markdown is written, then the CSV fails with exit 1", () => {
    const md = join(dir, 'empty-csv.md');
    const r = compare(['--input', rows(), '--output', md, '--csv', '']);
    assert.equal(r.code, 1);
    assert.ok(existsSync(md));
  });

  test('an unpaired surrogate cannot be written: the Markdown is left empty, the CSV keeps the records before it', () => {
    // write_text encodes the whole text after truncating the file; csv.writer writes record by record.
    const shown = join(dir, 'surrogate-shown.jsonl');
    writeFileSync(shown, '{"framework": "f", "candidate_id": "x\\ud800y", "status": "failed"}\n');
    const md = join(dir, 'surrogate-shown.md');
    writeFileSync(md, 'stale');
    const r = compare(['--input', shown, '--output', md, '--csv', join(dir, 'surrogate-shown.csv')]);
    assert.equal(r.code, 1);
    assert.equal(r.err, `cannot write ${md}: 'utf-8' codec can't encode character '\\ud800': surrogates not allowed\n`);
    assert.equal(readFileSync(md, 'utf8'), '');
    assert.equal(existsSync(join(dir, 'surrogate-shown.csv')), false);

    // A winner candidate that is not the best is in no table, only in the CSV, after the best row.
    const hidden = join(dir, 'surrogate-hidden.jsonl');
    const ok = (id: string, rps: number) => `{"framework": "f", "candidate_id": "${id}", "status": "ok", "sla": {"passed": true}, "metrics": {"request_throughput": ${rps}}}`;
    writeFileSync(hidden, [ok('best', 9), ok('x\\ud800y', 5), ok('after', 1)].join('\n'));
    const csv = join(dir, 'surrogate-hidden.csv');
    const h = compare(['--input', hidden, '--output', join(dir, 'surrogate-hidden.md'), '--csv', csv]);
    assert.equal(h.code, 1);
    assert.match(readFileSync(join(dir, 'surrogate-hidden.md'), 'utf8'), /\| default \| best \| ok \| True \| 9 \|/);
    assert.equal(readFileSync(csv, 'utf8'), `${expected('08-empty', 'csv')}f,default,best,ok,True,9,,,,,,,,,,,,,\r\n`);
  });

  test('an output folder that is a file, or an input that is a folder, is exit 1', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    assert.equal(compare(['--input', rows(), '--output', join(file, 'summary.md')]).code, 1);
    const r = compare(['--input', dir, '--output', join(dir, 'never.md')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /is a directory/);
    assert.equal(compare(['--input=', '--output', join(dir, 'never.md')]).code, 1);
    assert.equal(existsSync(join(dir, 'never.md')), false);
  });
});
