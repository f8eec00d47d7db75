// The simulated CLIs behave as each engine release's source does (issue 25, audit #2 #3 #4 #6 #7 #8 #11 #14):
// vLLM's --help modes and multi-node flags by --sim-version, TokenSpeed's CLI by commit, trtllm-serve's missing
// --version, SGLang's --config on another node, and the servers' process trees. Real processes from bin/sim.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SHIM_DIR, runShimProcess, simBundle } from '../support/sim';

const FAST = '--sim-speed 1000 --sim-log-interval 0';
const opts = (extra = ''): Record<string, string> => ({ AUTOBENCH_SIM_OPTS: `${FAST} ${extra}`.trim() });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** State, ppid, pgrp, ... of /proc/PID/stat (after the command name). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

const ppidOf = (pid: number): number => Number(statFields(pid)[1]);
const pgidOf = (pid: number): number => Number(statFields(pid)[2]);

async function waitUntil(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('vLLM --help by release (audit #4)', () => {
  test('0.8.5: --help=all is an argparse error (exit 2); --help is the full flag list', async () => {
    const bad = await runShimProcess('vllm', ['serve', '--help=all'], { env: opts('--sim-version 0.8.5') });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /vllm serve: error: argument -h\/--help: ignored explicit argument 'all'/);
    const full = await runShimProcess('vllm', ['serve', '--help'], { env: opts('--sim-version 0.8.5') });
    assert.equal(full.code, 0);
    assert.match(full.stdout, /--max-num-seqs/);
    assert.doesNotMatch(full.stdout, /--headless/);
  });

  test('0.10.2: --help=all is a keyword search (Parameters matching), --help the full list', async () => {
    const search = await runShimProcess('vllm', ['serve', '--help=all'], { env: opts('--sim-version 0.10.2') });
    assert.equal(search.code, 0);
    assert.match(search.stdout, /^Parameters matching 'all':/);
    assert.doesNotMatch(search.stdout, /--max-num-seqs/);
    const full = await runShimProcess('vllm', ['serve', '--help'], { env: opts('--sim-version 0.10.2') });
    assert.match(full.stdout, /--max-num-seqs/);
    assert.match(full.stdout, /--headless/);
  });

  test('default (newest): --help=all the full list with the mp multi-node flags, --help the summary', async () => {
    const all = await runShimProcess('vllm', ['serve', '--help=all'], { env: opts() });
    assert.match(all.stdout, /--max-num-seqs/);
    assert.match(all.stdout, /--nnodes/);
    const summary = await runShimProcess('vllm', ['serve', '--help'], { env: opts() });
    assert.doesNotMatch(summary.stdout, /--max-num-seqs/);
  });

  test('vllm --version prints the release of --sim-version', async () => {
    const r = await runShimProcess('vllm', ['--version'], { env: opts('--sim-version 0.10.2') });
    assert.equal(r.stdout, '0.10.2\n');
  });
});

describe('vLLM multi-node flags by release (audit #6)', () => {
  test('0.11.0 rejects --nnodes/--node-rank/--master-addr as unrecognized arguments (exit 2); 0.11.2 lists them', async () => {
    const r = await runShimProcess('vllm', ['serve', 'Qwen/Qwen3-8B', '--nnodes', '2', '--node-rank', '1', '--master-addr', '10.0.0.1', '--headless'], {
      env: opts('--sim-version 0.11.0'),
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /vllm serve: error: unrecognized arguments: --nnodes 2 --node-rank 1 --master-addr 10\.0\.0\.1/);
    const old = await runShimProcess('vllm', ['serve', '--help'], { env: opts('--sim-version 0.10.2') });
    assert.doesNotMatch(old.stdout, /--nnodes|--master-port/);
    const fresh = await runShimProcess('vllm', ['serve', '--help=nnodes'], { env: opts('--sim-version 0.11.2') });
    assert.match(fresh.stdout, /--nnodes/);
  });
});

describe('TokenSpeed CLI by commit (audit #3 #7 #11 #14)', () => {
  test('serve --help: only -h and --headless (newest), only -h (2026-07), the engine list before the gateway split', async () => {
    const newest = await runShimProcess('tokenspeed', ['serve', '--help'], { env: opts() });
    assert.equal(newest.code, 0);
    assert.match(newest.stdout, /usage: tokenspeed serve \[-h\] \[--headless\]/);
    assert.doesNotMatch(newest.stdout, /--tensor-parallel-size|--max-num-seqs/);
    const july = await runShimProcess('ts', ['serve', '--help'], { env: opts('--sim-version main-2026-07-01') });
    assert.equal(july.stdout.trim().split('\n')[0], 'usage: tokenspeed serve [-h]');
    assert.doesNotMatch(july.stdout, /--headless/);
    const initial = await runShimProcess('tokenspeed', ['serve', '--help'], { env: opts('--sim-version initial-release-205c53c4') });
    assert.match(initial.stdout, /--tensor-parallel-size/);
  });

  test('no --version option (help, exit 1), no subcommand (help, exit 1), `tokenspeed version` prints TokenSpeed v0.1.0', async () => {
    const v = await runShimProcess('tokenspeed', ['--version'], { env: opts() });
    assert.equal(v.code, 1);
    assert.match(v.stdout, /^usage: tokenspeed /);
    const none = await runShimProcess('tokenspeed', [], { env: opts() });
    assert.equal(none.code, 1);
    const version = await runShimProcess('tokenspeed', ['version'], { env: opts() });
    assert.equal(version.code, 0);
    assert.equal(version.stdout, 'TokenSpeed v0.1.0\n');
  });

  test('a leading positional model: rejected at 1e9340c2 (exit 1), rewritten to --model on the newest', async () => {
    const rejected = await runShimProcess('tokenspeed', ['serve', 'Qwen/Qwen3-8B'], { env: opts('--sim-version 1e9340c2') });
    assert.equal(rejected.code, 1);
    assert.match(rejected.stderr, /ValueError: unexpected positional arg: 'Qwen\/Qwen3-8B'/);
    const both = await runShimProcess('tokenspeed', ['serve', 'Qwen/Qwen3-8B', '--model', 'Qwen/Qwen3-8B'], { env: opts() });
    assert.equal(both.code, 1);
    assert.match(both.stderr, /model specified both as positional argument and via --model\/--model-path/);
    let models = '';
    const LISTEN = /(?:Uvicorn running on http:\/\/|Starting router on )[\d.]+:(\d+)/;
    const served = await runShimProcess('tokenspeed', ['serve', 'Qwen/Qwen3-8B', '--port', '0'], {
      env: opts(),
      until: LISTEN,
      onMatch: async (out) => {
        const url = `http://127.0.0.1:${LISTEN.exec(out)?.[1] ?? ''}/v1/models`;
        // The gateway lists the model once its worker has registered.
        for (let i = 0; i < 50 && !models.includes('Qwen/Qwen3-8B'); i++) {
          models = await (await fetch(url)).text();
          await new Promise((r) => setTimeout(r, 100));
        }
      },
    });
    assert.equal(served.code, 0, served.stderr);
    assert.match(models, /Qwen\/Qwen3-8B/);
  });

  test('--headless before 57b49061 reaches the gateway, which refuses it (exit 1)', async () => {
    const r = await runShimProcess('tokenspeed', ['serve', '--model', 'Qwen/Qwen3-8B', '--headless'], { env: opts('--sim-version main-2026-07-01') });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unexpected argument '--headless'/);
  });

  test('node rank 1 without --headless between the split and 1e6deeb0: its engine never reports SERVING, exit 1', async () => {
    const r = await runShimProcess('tokenspeed', ['serve', '--model', 'Qwen/Qwen3-8B', '--nnodes', '2', '--node-rank', '1', '--dist-init-addr', '127.0.0.1:1'], {
      env: opts('--sim-version main-2026-07-01'),
      keepAlive: true,
      until: /waiting for the engine's gRPC SERVING/,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /engine never reached SERVING/);
  });

  for (const headless of [true, false]) {
    test(`node rank 1 ${headless ? 'with --headless' : 'without --headless (1e6deeb0: the follower execs the engine)'} (newest) joins the head and serves no HTTP`, async () => {
      const port = await freePort();
      const common = ['serve', '--model', 'Qwen/Qwen3-8B', '--nnodes', '2', '--dist-init-addr', `127.0.0.1:${port}`];
      let follower = { code: -1 as number | null, stdout: '', stderr: '' };
      const head = await runShimProcess('tokenspeed', [...common, '--node-rank', '0', '--port', '0'], {
        env: opts(),
        until: /waiting for the other ranks/,
        onMatch: async () => {
          follower = await runShimProcess('tokenspeed', [...common, '--node-rank', '1', ...(headless ? ['--headless'] : [])], { env: opts(), until: /joined the head/ });
        },
      });
      assert.equal(head.code, 0, head.stderr);
      assert.equal(follower.code, 0, follower.stderr);
      assert.match(follower.stderr, /node rank 1 of 2: joined the head/);
      assert.doesNotMatch(follower.stderr + follower.stdout, /Uvicorn running|Starting router/);
    });
  }
});

describe('trtllm-serve version (audit #14)', () => {
  test('no --version option (click: No such option, exit 2); python3 -c import tensorrt_llm prints the banner and the version', async () => {
    const r = await runShimProcess('trtllm-serve', ['--version'], { env: opts() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Error: No such option: --version/);
    const py = await runShimProcess('python3', ['-c', 'import tensorrt_llm; print(tensorrt_llm.__version__)'], { env: opts('--sim-version 1.1.0') });
    assert.equal(py.code, 0, py.stderr);
    assert.deepEqual(py.stdout.trim().split('\n'), ['[TensorRT-LLM] TensorRT LLM version: 1.1.0', '1.1.0']);
  });
});

describe('SGLang --config on another node (audit #8)', () => {
  test('a --config file that is not on this node: ValueError Config file not found, exit 1', async () => {
    const r = await runShimProcess('sglang', ['serve', '--model-path', 'Qwen/Qwen3-8B', '--config', '/nonexistent/autobench/server-config.yaml'], { env: opts() });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ValueError: Config file not found: \/nonexistent\/autobench\/server-config\.yaml/);
  });
});

describe('process trees (audit #2)', () => {
  test("a vLLM server's VLLM::EngineCore child shares its process group and exits when the server is TERMed", async () => {
    let engine = 0;
    let group = 0;
    let serverGroup = -1;
    let server = 0;
    const r = await runShimProcess('vllm', ['serve', 'Qwen/Qwen3-8B', '--port', '0'], {
      env: opts(),
      until: /\(VLLM::EngineCore pid=(\d+)\)/,
      onMatch: (out) => {
        engine = Number(/\(VLLM::EngineCore pid=(\d+)\)/.exec(out)?.[1]);
        server = ppidOf(engine);
        group = pgidOf(engine);
        serverGroup = pgidOf(server);
        return Promise.resolve();
      },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(engine > 0 && server > 0);
    assert.equal(group, serverGroup, 'EngineCore shares the API server process group');
    assert.ok(await waitUntil(() => !alive(engine), 3000), `EngineCore ${engine} still alive after the server exited`);
  });

  test("a TensorRT-LLM server's orted child is in another process group and survives TERM + KILL of the server's group", async () => {
    const js = await simBundle();
    const child = spawn(path.join(SHIM_DIR, 'trtllm-serve'), ['serve', 'Qwen/Qwen3-8B', '--port', '0'], {
      env: { ...process.env, PATH: `${SHIM_DIR}${path.delimiter}${process.env.PATH ?? ''}`, AUTOBENCH_SIM_JS: js, AUTOBENCH_NODE: process.execPath, ...opts('--sim-shutdown-delay 5') },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    assert.ok(await waitUntil(() => /\(orted pid=\d+\)/.test(out), 15_000), out);
    const orted = Number(/\(orted pid=(\d+)\)/.exec(out)?.[1]);
    const serverGroup = child.pid as number;
    try {
      assert.equal(pgidOf(serverGroup), serverGroup);
      assert.notEqual(pgidOf(orted), serverGroup, 'orted must be in another process group');
      process.kill(-serverGroup, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      process.kill(-serverGroup, 'SIGKILL');
      await exited;
      await new Promise((r) => setTimeout(r, 500));
      assert.ok(alive(orted), 'orted should linger after its server was killed');
    } finally {
      try {
        process.kill(-pgidOf(orted), 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    assert.ok(await waitUntil(() => !alive(orted), 3000));
  });

  test('a TensorRT-LLM server stopped gracefully takes its orted with it', async () => {
    let orted = 0;
    const r = await runShimProcess('trtllm-serve', ['serve', 'Qwen/Qwen3-8B', '--port', '0'], {
      env: opts(),
      until: /\(orted pid=(\d+)\)/,
      onMatch: (out) => {
        orted = Number(/\(orted pid=(\d+)\)/.exec(out)?.[1]);
        return Promise.resolve();
      },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(await waitUntil(() => !alive(orted), 3000), `orted ${orted} still alive after a clean shutdown`);
  });
});
