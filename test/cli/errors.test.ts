// User and environment errors as a user meets them in the built CLI: one line naming what is wrong and the fix,
// exit 2 for a bad command line and 1 for the environment, found before any work starts, never a stack trace
// (unless AUTOBENCH_DEBUG is set). Servers are loopback ones started here, counting what reaches them.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../support/fixtures';
import { FakeServer } from '../support/fake-server';
import { refusedPort } from '../support/net';

const CLI = join(REPO, 'dist', 'cli.js');
const TOKENIZER = join(REPO, 'node_modules', '@lenml', 'tokenizer-llama2', 'models', 'tokenizer.json');
const PLAN = join(REPO, 'configs', 'examples', 'demo.plan.yaml');
/** A small, quick workload: the tests are about what happens before and around it. */
const SMALL = ['--tokenizer', TOKENIZER, '--num-prompts', '2', '--random-input-len', '8', '--random-output-len', '2', '--random-range-ratio', '1', '--disable-tqdm'];
const STACK = /\n\s+at .+:\d+/;

interface Ran {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** Runs the built CLI without blocking this process (the loopback servers here must keep answering). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env: { ...process.env, NO_COLOR: '1', AUTOBENCH_DEBUG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, ms: performance.now() - started });
    });
  });
}

/** A loopback HTTP server that answers every request with `status` and counts them. */
async function countingServer(status: number): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"data":[{"id":"m"}]}' : '{"error":"loading"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, count: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

function assertOneLine(r: Ran, code: number, message: RegExp): void {
  assert.equal(r.code, code, `exit ${r.code}: ${r.err}`);
  assert.match(r.err, message);
  assert.doesNotMatch(r.err, STACK, 'no stack trace');
  assert.doesNotMatch(r.err, /internal error/);
}

let dir: string;
before(() => {
  assert.ok(existsSync(CLI), 'dist/cli.js missing: run npm run build first');
  dir = mkdtempSync(join(tmpdir(), 'autobench-cli-errors-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('autobench bench: the server side', () => {
  test('a malformed --base-url is a usage error that shows the right shape, before any prompt is built', async () => {
    const r = await cli(['bench', '--base-url', 'localhost:8000', ...SMALL]);
    assertOneLine(r, 2, /--base-url 'localhost:8000' has no scheme: give http:\/\/HOST:PORT.*\(did you mean http:\/\/localhost:8000\?\)/);
    assert.doesNotMatch(r.err, /requests \(random\)/, 'no workload was built');
    assertOneLine(await cli(['bench', '--base-url', 'ftp://example.com', ...SMALL]), 2, /--base-url 'ftp:\/\/example\.com' is not an http or https URL/);
  });

  test('a refused connection fails at once (not after --ready-check-timeout-sec), naming the fix', async () => {
    const port = await refusedPort();
    const r = await cli(['bench', '--base-url', `http://127.0.0.1:${port}`, '--ready-check-timeout-sec', '60', ...SMALL]);
    assertOneLine(r, 1, /cannot reach the server: connection refused .*Is the server running\? Start it first, or point --base-url/);
    // The whole process (node start-up and the prompts included) ends far inside the 60 s ready timeout.
    assert.ok(r.ms < 15_000, `took ${Math.round(r.ms)} ms`);
  });

  test('AUTOBENCH_DEBUG adds the stack trace', async () => {
    const r = await cli(['bench', '--base-url', `http://127.0.0.1:${await refusedPort()}`, ...SMALL], { AUTOBENCH_DEBUG: '1' });
    assert.equal(r.code, 1);
    assert.match(r.err, STACK);
  });

  test('a server that never becomes ready: exit 1 after the timeout, with what to do', async () => {
    const srv = await countingServer(503);
    try {
      const r = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--ready-check-timeout-sec', '1', ...SMALL]);
      assertOneLine(r, 1, /server not ready after 1 s \(GET \/v1\/models: HTTP 503.*raise --ready-check-timeout-sec/);
      assert.ok(srv.count() >= 1);
    } finally {
      await srv.close();
    }
  });

  test('a failed cache flush: exit 1 naming --flush-cache', async () => {
    const srv = new FakeServer({ flushStatus: 500 });
    await srv.listen();
    try {
      const r = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--flush-cache', ...SMALL]);
      assertOneLine(r, 1, /cache flush failed: POST \/reset_prefix_cache: HTTP 500.*Drop --flush-cache/);
      assert.equal(srv.flushCount, 1);
    } finally {
      await srv.close();
    }
  });
});

describe('autobench bench: arguments and output, checked before any request', () => {
  test('an --output-file that cannot be written fails before the run: not one request reaches the server', async () => {
    const srv = await countingServer(200);
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      const under = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--output-file', join(file, 'out.jsonl'), ...SMALL]);
      assertOneLine(under, 2, /--output-file .*a-file\/out\.jsonl: .*a-file is a file, not a folder; choose another path/);
      const folder = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--output-file', dir, ...SMALL]);
      assertOneLine(folder, 2, /--output-file .*: is a folder; give a file path/);
      if (process.getuid?.() !== 0) {
        const locked = join(dir, 'locked');
        mkdirSync(locked);
        chmodSync(locked, 0o500);
        const denied = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--output-file', join(locked, 'out.jsonl'), ...SMALL]);
        chmodSync(locked, 0o700);
        assertOneLine(denied, 1, /--output-file .*cannot write: permission denied/);
      }
      assert.equal(srv.count(), 0, 'no request was sent');
      const ok = await cli(['bench', '--backend', 'vllm', '--base-url', srv.url, '--output-file', join(dir, 'new', 'sub', 'out.jsonl'), '--warmup-requests', '0', ...SMALL]);
      assert.equal(ok.code, 0, ok.err);
      assert.ok(existsSync(join(dir, 'new', 'sub', 'out.jsonl')), 'missing folders are created');
    } finally {
      await srv.close();
    }
  });

  test('bad numbers exit 2 with the flag and what it takes, before the tokenizer is even loaded', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--num-prompts', 'abc'], /--num-prompts: 'abc' is not a number/],
      [['--num-prompts', '-3'], /--num-prompts must be >= 1 for --dataset-name random, got -3/],
      [['--request-rate', '0'], /--request-rate must be > 0 or inf/],
      [['--port', '70000'], /--port must be <= 65535, got 70000/],
      [['--max-concurrency', '0'], /--max-concurrency must be >= 1, got 0/],
      [['--temperature', 'hot'], /--temperature: 'hot' is not a number/],
      [['--random-range-ratio', '2'], /--random-range-ratio must be within \[0, 1\]/],
    ];
    for (const [args, message] of cases) {
      // A tokenizer path that does not exist: the argument check must come first.
      const r = await cli(['bench', '--tokenizer', join(dir, 'no-tokenizer'), ...args]);
      assertOneLine(r, 2, message);
    }
  });
});

describe('autobench run and report: checked before the work', () => {
  test('run: a bad --target, a missing --tokenizer and bad numbers are usage errors (exit 2)', async () => {
    assertOneLine(await cli(['run', PLAN, '--target', 'gpu-box']), 2, /--target must be sim, local, ssh:HOST or slurm\[:PARTITION\], got 'gpu-box'/);
    assertOneLine(await cli(['run', PLAN, '--target', 'ssh:-oProxyCommand=x']), 2, /is not a host name; give ssh:HOST/);
    assertOneLine(await cli(['run', PLAN, '--target', 'slurm:-p']), 2, /'-p' is not a partition name; give slurm:PARTITION/);
    assertOneLine(await cli(['run', PLAN, '--max-parallel', '2']), 2, /--max-parallel runs candidates in parallel jobs on a Slurm cluster; give --target slurm\[:PARTITION\] with it/);
    assertOneLine(await cli(['run', PLAN, '--target', 'slurm', '--max-parallel', '0']), 2, /--max-parallel must be a whole number >= 1, got '0'/);
    assertOneLine(await cli(['run', PLAN, '--sim-on-nodes']), 2, /--sim-on-nodes puts the simulated engine on Slurm nodes; give --target slurm/);
    assertOneLine(await cli(['run', PLAN, '--tokenizer', join(dir, 'none.json')]), 2, /--tokenizer .*none\.json: no such tokenizer\.json or model folder/);
    assertOneLine(await cli(['run', PLAN, '--repeats', '-1']), 2, /--repeats must be a whole number >= 0, got '-1'/);
    assertOneLine(await cli(['run', PLAN, '--sim-speed', 'fast']), 2, /--sim-speed must be a positive number, got 'fast'/);
    assertOneLine(await cli(['run', PLAN, '--frameworks', 'vllm,trt']), 2, /--frameworks: unknown framework 'trt'; choose from sglang, vllm, tensorrt_llm, tokenspeed/);
    const typo = await cli(['run', PLAN, '--bogus']);
    assertOneLine(typo, 2, /^autobench: Unknown option '--bogus'\n\nusage: autobench run PLAN/);
    assert.doesNotMatch(typo.err, /To specify a positional argument|^options:/m, 'the usage lines, not the whole help');
  });

  test('run: a run directory that cannot be written fails before any server starts', async () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    const r = await cli(['run', PLAN, '--out', join(file, 'run'), '--quiet']);
    assertOneLine(r, 2, /--out .*plain-file\/run: .*plain-file is a file, not a folder/);
    assert.doesNotMatch(r.err, /^run /m, 'the run never started');
  });

  test('report: every output path is checked before the rows are read', async () => {
    const rows = join(dir, 'rows.jsonl');
    writeFileSync(rows, '{"framework": "vllm", "status": "ok"}\n');
    const file = join(dir, 'md-parent');
    writeFileSync(file, '');
    assertOneLine(await cli(['report', rows, '--md', join(file, 'r.md')]), 2, /--md .*md-parent is a file, not a folder/);
    assertOneLine(await cli(['report', rows, '--csv', dir]), 2, /--csv .*: is a folder; give a file path/);
    // A missing rows file is the environment's problem, said as such; the outputs are not left behind.
    assertOneLine(await cli(['report', join(dir, 'none.jsonl'), '--md', join(dir, 'out', 'r.md')]), 1, /cannot read rows .*none\.jsonl: no such file/);
    assert.deepEqual(readdirSync(join(dir, 'out')), [], 'the checked output file was not left behind');
  });
});

describe('autobench sim: bad flags', () => {
  test('a value no server can start with exits 2 with one line, never a stack trace', async () => {
    assertOneLine(await cli(['sim', 'serve', '--framework', 'vllm', 'Qwen/Qwen3-8B', '--port', '99999']), 2, /^autobench-sim: port 99999 is out of range: give --port 0-65535/m);
    assertOneLine(await cli(['sim', 'shim', 'vllm', 'serve', 'Qwen/Qwen3-8B', '--tensor-parallel-size', '0']), 2, /tensor parallel size 0 is not possible: give a whole number >= 1/);
    assertOneLine(await cli(['sim', 'serve', '--framework', 'sglang', '--model-path', 'm', '--sim-speed', '0']), 2, /--sim-speed: invalid value '0' \(a number > 0\)/);
    assertOneLine(await cli(['sim', 'shim', 'vllm', 'serve', 'm', '--bogus']), 2, /vllm serve: error: unrecognized arguments: --bogus/);
  });
});
