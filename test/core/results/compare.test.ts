// `autobench compare` as CI runs it: the built CLI, byte-exact Markdown and CSV, the script's error
// lines and exit codes, argparse-style arguments, and each deliberate difference.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'dist', 'cli.js');
const FIXTURES = join(__dirname, 'fixtures');

function run(args: string[], cwd = REPO) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let dir: string;
before(() => {
  assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
  dir = mkdtempSync(join(tmpdir(), 'autobench-compare-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes rows (strings or objects) as JSONL and runs compare; returns the outputs. */
function compare(lines: Array<string | object>, name: string, extra: string[] = []) {
  const input = join(dir, `${name}.jsonl`);
  writeFileSync(input, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  const md = join(dir, name, 'summary.md');
  const csv = join(dir, name, 'summary.csv');
  const r = run(['compare', '--input', input, '--output', md, '--csv', csv, ...extra]);
  return { ...r, md: existsSync(md) ? readFileSync(md, 'utf8') : undefined, csv: existsSync(csv) ? readFileSync(csv, 'utf8') : undefined, input };
}

describe('autobench compare: bytes', () => {
  test('a four-framework, two-scenario run matches the expected summary byte for byte', () => {
    // The expected files were checked by hand against the contract: 0.995 -> 0.99 (exact binary
    // value, half to even), ints printed as is (12), the failed table in input order, the CSV in
    // rank order with ties in input order. tokenspeed's metrics.accept_length/cache_hit_rate are
    // not read: the script reads spec_decode/phase_metrics/cache, then metrics.mean_accept_length,
    // metrics.pre_scheduler_ms and metrics.prefix_cache_hit_rate. The branch-by-branch corpus is
    // compare-parity.test.ts.
    const md = join(dir, 'multi', 'summary.md');
    const csv = join(dir, 'multi', 'summary.csv');
    const r = run(['compare', '--input', join(FIXTURES, 'multi-framework.jsonl'), '--output', md, '--csv', csv]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    assert.equal(readFileSync(md, 'utf8'), readFileSync(join(FIXTURES, 'multi-framework.expected.md'), 'utf8'));
    assert.equal(readFileSync(csv, 'utf8'), readFileSync(join(FIXTURES, 'multi-framework.expected.csv'), 'utf8'));
  });

  test('one row: every cell format, Markdown escaping and CSV quoting', () => {
    const r = compare(
      [
        // Written as text: `1e16` is a Python float (JSON.stringify would write an int), `2` an int.
        '{"framework": "f", "candidate_id": "a,b|c", "status": "ok", "sla": {"passed": true}, ' +
          '"metrics": {"request_throughput": 1e-05, "output_token_throughput": 0.30000000000000004, "p50_ttft_ms": 1e16, "mean_ttft_ms": 2}, ' +
          '"hardware": {"gpu_count": 2}, "server_command": "serve --flag \'x y\'"}',
        '{"framework": "f", "candidate_id": 7, "status": "failed", "failure_reason": "say \\"hi\\"\\nbye|now", "sla": {"passed": "no"}}',
      ],
      'formats',
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.md,
      [
        '# Benchmark Summary',
        '',
        '## Best Commands By Framework',
        '',
        '### `f`',
        '',
        '| Scenario | Candidate | Status | SLA | Req/s | Output tok/s | Total tok/s | P50 TTFT ms | P50 TPOT ms | Success rate | Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command | Artifacts |',
        '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
        "| default | a,b\\|c | ok | True | 0.00 | 0.30 |  | 10000000000000000.00 |  |  |  |  |  | 2 | serve --flag 'x y' |  |",
        '',
        '## Cross-Framework Best Comparison',
        '',
        '| Scenario | Rank | Framework | Candidate | SLA | Req/s | Output tok/s | P50 TTFT ms | P50 TPOT ms | Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command |',
        '| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
        "| default | 1 | f | a,b\\|c | True | 0.00 | 0.30 | 10000000000000000.00 |  |  |  |  | 2 | serve --flag 'x y' |",
        '',
        '',
        '## Failed Or SLA-Failing Candidates',
        '',
        'This table records tried configs that were not selected. They either failed, were skipped by policy, or completed without passing the SLA.',
        '',
        '| Framework | Candidate | Status | SLA | Reason |',
        '| --- | --- | --- | --- | --- |',
        '| f | 7 | failed | False | say "hi"<br>bye\\|now |',
        '',
      ].join('\n'),
    );
    assert.equal(
      r.csv,
      'framework,scenario,candidate_id,status,sla_passed,request_throughput,output_token_throughput,p50_ttft_ms,p50_tpot_ms,mean_ttft_ms,mean_tpot_ms,p99_ttft_ms,p99_tpot_ms,mean_accept_length,pre_scheduler_ms,prefix_cache_hit_rate,gpu_count,server_command,failure_reason\r\n' +
        "f,default,\"a,b|c\",ok,True,1e-05,0.30000000000000004,1e+16,,2,,,,,,,2,serve --flag 'x y',\r\n" +
        'f,default,7,failed,False,,,,,,,,,,,,,,"say ""hi""\nbye|now"\r\n',
    );
  });

  test('no rows: the one-line summary, and a header-only CSV', () => {
    const r = compare(['', '   ', '\t'], 'empty');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.md, '# Benchmark Summary\n\nNo rows found.\n');
    assert.equal(r.csv?.split('\r\n').length, 2);
  });

  test('deliberate difference: a row without a framework fills its own table', () => {
    const r = compare([{ candidate_id: 'orphan', status: 'ok', sla: { passed: true }, metrics: { request_throughput: 3 } }], 'no-framework');
    assert.equal(r.code, 0, r.err);
    const table = r.md?.split('### `unknown`')[1]?.split('## Cross-Framework')[0] ?? '';
    // Python prints this table with no rows; ours has the row.
    assert.match(table, /\| default \| orphan \| ok \| True \| 3 \|/);
    // The cross-framework table keeps the script's framework cell (empty for a row without one).
    assert.ok(r.md?.includes('| default | 1 |  | orphan | True | 3 |'));
  });
});

describe('autobench compare: errors and arguments', () => {
  test('an invalid line stops with <path>:<line>: invalid JSON and exit 1, writing nothing', () => {
    const r = compare(['{"framework": "f", "status": "ok"}', '', '{"framework": "f", "status": }'], 'bad-json');
    assert.equal(r.code, 1);
    assert.equal(r.err, `${r.input}:3: invalid JSON: Expecting value: line 1 column 30 (char 29)\n`);
    assert.equal(r.md, undefined);
    assert.equal(r.csv, undefined);
  });

  test('a line that is not an object stops with expected a JSON object', () => {
    const r = compare(['{"framework": "f"}', '[1, 2]'], 'not-object');
    assert.equal(r.code, 1);
    assert.equal(r.err, `${r.input}:2: expected a JSON object\n`);
  });

  test('NaN, Infinity and -Infinity literals are read as Python json reads them and printed its way', () => {
    const r = compare(['{"framework": "f", "status": "ok", "sla": {"passed": true}, "metrics": {"request_throughput": NaN, "p50_ttft_ms": -Infinity, "p50_tpot_ms": Infinity}}'], 'nan');
    assert.equal(r.code, 0, r.err);
    assert.ok((r.md ?? '').includes('| default | 1 | f |  | True | nan |  | -inf | inf |'), r.md);
    // Other spellings are still not JSON for Python either.
    const bad = compare(['{"framework": "f", "metrics": {"p50_ttft_ms": -NaN}}'], 'bad');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /:1: invalid JSON: Expecting value/);
  });

  test('line numbers count CR, LF and CRLF line ends and blank lines, as Python reads text', () => {
    const input = join(dir, 'crlf.jsonl');
    writeFileSync(input, '{"framework": "f"}\r\n\r\n{"framework": "g"}\r{"x": [}\n');
    const r = run(['compare', '--input', input, '--output', join(dir, 'crlf.md')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /crlf\.jsonl:4: invalid JSON: Expecting value: line 1 column 8 \(char 7\)/);
  });

  test('the path in errors is printed the way Python prints a Path', () => {
    writeFileSync(join(dir, 'p.jsonl'), '[]\n');
    const r = run(['compare', '--input', './p.jsonl', '--output', 'out.md'], dir);
    assert.equal(r.err, 'p.jsonl:1: expected a JSON object\n');
    const r2 = run(['compare', '--input', `${dir}//./p.jsonl`, '--output', join(dir, 'out.md')]);
    assert.equal(r2.err, `${dir}/p.jsonl:1: expected a JSON object\n`);
  });

  test('argparse forms: --opt=value and unambiguous prefixes; folders are created', () => {
    const input = join(dir, 'args.jsonl');
    writeFileSync(input, '{"framework": "f", "status": "ok", "sla": {"passed": true}}\n');
    const out = join(dir, 'deep', 'er', 's.md');
    const r = run(['compare', `--in=${input}`, '--out', out, '--c', join(dir, 'deep', 's.csv')]);
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(out));
    assert.ok(existsSync(join(dir, 'deep', 's.csv')));
  });

  test('missing required arguments exit 2 with the names', () => {
    const r = run(['compare', '--input', 'x.jsonl']);
    assert.equal(r.code, 2);
    assert.match(r.err, /the following arguments are required: --output/);
    const help = run(['compare', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /usage: autobench compare --input ROWS\.jsonl --output SUMMARY\.md/);
  });

  test('a missing input file is a one-line error with exit 1', () => {
    const r = run(['compare', '--input', join(dir, 'nope.jsonl'), '--output', join(dir, 'x.md')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot read .*nope\.jsonl: no such file/);
  });
});
