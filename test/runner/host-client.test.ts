// The load client on the server's host (dist/client-node.js run through an executor): the same result as the in-process client through the local executor and a real sshd, a malformed spec refused in one line, cancel and timeout, and the fallback through the port forward recorded as such.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { decodeWire, encodeWire, resultFromWire } from '../../src/client';
import { LocalExecutor, SshExecutor, type Executor, type ServerProcess } from '../../src/exec';
import { runTrial, trialBenchOptions, type TrialOutcome, type TrialSettings } from '../../src/runner/client-trial';
import { resetHostClient, runPlacedTrial } from '../../src/runner/client-placement';
import { prepareHostClient, type HostClient } from '../../src/runner/host-client';
import type { NodeSource } from '../../src/runner/host-node-fetch';
import type { LiveServer } from '../../src/runner/server';
import type { FakeBehaviour } from '../support/fake-server';
import { FakeServer } from '../support/fake-server';
import { rows, workload } from '../support/client';
import { skipWhenMissing } from '../support/requirements';
import { cleanup, clientBundle, tempDir } from '../support/runner';
import { oldNodeShims, sshdMissing, startSshd, type Sshd } from '../support/sshd';
import { pollUntil } from '../support/slurm';

const STREAM: Partial<FakeBehaviour> = { ttftMs: 50, itlMs: 10 };

/** The fake server as the runner sees a launched one: its process is this test's, so it never exits. */
function liveServer(srv: FakeServer, forward: { localHost: string; localPort: number; close(): Promise<void> } = { localHost: '127.0.0.1', localPort: srv.port, close: () => Promise.resolve() }): LiveServer {
  const proc: ServerProcess = { pid: process.pid, pgid: process.pid, exited: new Promise(() => undefined), running: true, onExit: () => undefined, logTail: () => [], stop: () => Promise.resolve({ code: 0, signal: null }) };
  return { proc, port: srv.port, forward, baseUrl: `http://${forward.localHost}:${forward.localPort}`, model: 'fake-model', exit: undefined, simulated: false };
}

function settings(o: Partial<TrialSettings> = {}): TrialSettings {
  return { backend: 'openai', wallRate: Infinity, concurrency: 8, warmupRequests: 1, seed: 1, extraBody: {}, timeoutMs: 60_000, ...o };
}

const noHooks = { signal: undefined, onConnectionLost: () => () => undefined, onProgress: () => undefined };

function done(o: TrialOutcome | { kind: 'unavailable'; reason: string }): Extract<TrialOutcome, { kind: 'done' }> {
  assert.equal(o.kind, 'done', JSON.stringify(o).slice(0, 500));
  return o;
}

/** Runs one trial in this process and one through the host client; both must describe the same run. */
async function compareWithInProcess(client: HostClient, srv: FakeServer): Promise<void> {
  const w = workload(rows(24, 20));
  const mine = done(await runTrial(liveServer(srv), w, settings(), noHooks)).result;
  const progress: number[] = [];
  const theirs = done(await client.runTrial({ workload: w, options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 60_000 }, { ...noHooks, onProgress: (p) => progress.push(p.completed) })).result;
  assert.equal(theirs.records.length, mine.records.length);
  assert.equal(theirs.metrics.completed, 24);
  assert.equal(theirs.metrics.completed, mine.metrics.completed);
  assert.equal(theirs.metrics.totalOutputTokens, mine.metrics.totalOutputTokens);
  assert.ok(theirs.startedAt instanceof Date && !Number.isNaN(theirs.startedAt.getTime()));
  assert.equal(theirs.requestRate, Infinity, 'an unlimited rate comes back as Infinity');
  assert.equal(theirs.flushCache, mine.flushCache);
  // Same server schedule (50 ms to the first token, 10 ms gaps): the medians agree within scheduling noise.
  const near = (a: number | null, b: number | null, tol: number, what: string) => assert.ok(a !== null && b !== null && Math.abs(a - b) < tol, `${what}: host ${a} vs in-process ${b}`);
  near(theirs.metrics.ttft.median, mine.metrics.ttft.median, 25, 'p50 TTFT');
  near(theirs.metrics.itl.median, mine.metrics.itl.median, 5, 'p50 ITL');
  assert.ok(theirs.records.every((r) => r.itlMs.length === 19 && Number.isFinite(r.ttftMs)));
}

/** Processes whose command line mentions `needle` (the client's folder on the "host", which is this machine). */
function processesWith(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(needle) && !l.includes('ps -eo'));
}


/** Everything a host suite started, stopped, and its folder removed. */
async function teardown(ex: Executor | undefined, sshd: Sshd | undefined, srv: FakeServer | undefined, dir: string): Promise<void> {
  delete process.env.AUTOBENCH_CLIENT_JS;
  await ex?.close();
  await sshd?.close();
  await srv?.close();
  cleanup(dir);
}

/** An ssh executor on the test sshd, its host key pinned in a known_hosts of its own. */
async function connectTo(sshd: Sshd): Promise<SshExecutor> {
  const knownHostsPath = path.join(sshd.dir, 'known_hosts');
  writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
  return SshExecutor.connect({ host: 'sshd-test', configPath: sshd.writeConfig(), knownHostsPath, agent: false });
}

describe('the client bundle', () => {
  test('a malformed spec is one line on stderr and exit 2, never a stack trace', async () => {
    const js = await clientBundle();
    const dir = tempDir();
    try {
      const cases: Array<[string, RegExp]> = [
        ['not json {', /bad spec: not JSON/],
        ['{"version":1}', /bad spec: workload\.rows must be a list/],
        ['{"version":7,"workload":{"rows":[]}}', /this client reads version 1/],
        [JSON.stringify({ version: 1, workload: { name: 'x', rows: [{ prompt: 'p', promptLen: 1, outputLen: -1, scenario: 's' }] }, options: {}, deadlineMs: 1 }), /workload\.rows\[0\]\.outputLen must be a whole number/],
        [JSON.stringify({ version: 1, workload: { name: 'x', rows: [] }, options: { backend: 'nope', baseUrl: 'http://127.0.0.1:1' }, deadlineMs: 1 }), /options\.backend/],
        [JSON.stringify({ version: 1, workload: { name: 'x', rows: [] }, options: { backend: 'openai', baseUrl: 'localhost:8000' }, deadlineMs: 1 }), /options\.baseUrl: 'localhost:8000' has no scheme/],
      ];
      for (const [i, [text, want]] of cases.entries()) {
        const f = path.join(dir, `spec${i}.json`);
        writeFileSync(f, text);
        const r = spawnSync(process.execPath, [js, '--spec', f], { encoding: 'utf8' });
        assert.equal(r.status, 2, `case ${i}: ${r.stderr}`);
        assert.equal(r.stdout, '');
        const lines = r.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0] ?? '', /^autobench client: /);
        assert.match(lines[0] ?? '', want);
      }
      for (const argv of [[], ['--spec'], ['--bogus', 'x'], ['--spec', path.join(dir, 'missing.json')], ['--serve'], ['--serve', '--result-dir', dir, '--spec', '-'], ['--result-dir', dir, '--spec', '-']]) {
        const r = spawnSync(process.execPath, [js, ...argv], { encoding: 'utf8' });
        assert.equal(r.status, 2, r.stderr);
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
        assert.doesNotMatch(r.stderr, /\n\s+at /);
      }
    } finally {
      cleanup(dir);
    }
  });
});

describe('the client bundle on worker threads', () => {
  test('alone in its folder, the one file is its own worker script: a spec asking for 2 workers measures on 2', { timeout: 60_000 }, async () => {
    const js = await clientBundle();
    const srv = new FakeServer({ behaviour: STREAM });
    await srv.listen();
    const dir = tempDir();
    try {
      const spec = { version: 1, workload: workload(rows(16, 8)), options: { ...trialBenchOptions(srv.url, 'fake-model', settings()), workers: 2 }, deadlineMs: 60_000 };
      const f = path.join(dir, 'spec.json');
      writeFileSync(f, encodeWire(spec));
      const child = spawn(process.execPath, [js, '--spec', f], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, err);
      const line = out.split('\n').find((l) => l.startsWith('{"event":"result"')) as string;
      const result = resultFromWire((decodeWire(line) as { result: unknown }).result);
      assert.equal(result.client.workers, 2);
      assert.equal(result.metrics.completed, 16);
      assert.ok(result.records.every((r) => r.success && r.itlMs.length === 7));
      assert.deepEqual(result.records.map((r) => r.index), Array.from({ length: 16 }, (_, i) => i));
    } finally {
      await srv.close();
      cleanup(dir);
    }
  });
});

describe('the serving client (client-node.js --serve): trials on its stdin, one at a time', () => {
  test('a bad command or spec is an error event for its trial and the client serves on; end of input ends it and removes its folder', { timeout: 60_000 }, async () => {
    const js = await clientBundle();
    const srv = new FakeServer({ behaviour: STREAM });
    await srv.listen();
    const dir = tempDir();
    const results = path.join(dir, 'results');
    const child = spawn(process.execPath, [js, '--serve', '--result-dir', results], { stdio: ['pipe', 'pipe', 'pipe'] });
    const events: Array<Record<string, unknown>> = [];
    let waiting: { pred: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void } | undefined;
    const next = (pred: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => (waiting = { pred, resolve }));
    };
    createInterface({ input: child.stdout }).on('line', (l) => {
      const e = JSON.parse(l) as Record<string, unknown>;
      events.push(e);
      if (waiting?.pred(e)) waiting.resolve(e);
    });
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    const line = (c: unknown) => `${encodeWire(c)}\n`;
    const spec = (baseUrl: string) => ({ version: 1, workload: workload(rows(4, 5)), options: trialBenchOptions(baseUrl, 'fake-model', settings({ warmupRequests: 0 })), deadlineMs: 30_000 });
    try {
      assert.equal((await next((e) => e.event === 'ready')).version, 1);
      child.stdin.write('not json\n{"run":"../x","spec":{}}\n');
      child.stdin.write(line({ run: 'bad', spec: { version: 1, workload: { rows: 3 } } }));
      child.stdin.write(line({ run: 'dead', spec: { ...spec('http://127.0.0.1:9'), options: { ...spec('http://127.0.0.1:9').options, readyCheckTimeoutS: 0 } } }));
      const dead = await next((e) => e.trial === 'dead' && e.event === 'error');
      assert.match(String(dead.message), /127\.0\.0\.1:9/);
      child.stdin.write(line({ run: 'ok1', spec: spec(srv.url) }));
      const ok1 = await next((e) => e.trial === 'ok1' && e.event === 'result');
      assert.equal(ok1.file, path.join(results, 'ok1.json.gz'));
      assert.ok(existsSync(String(ok1.file)));
      child.stdin.write(line({ run: 'ok2', spec: spec(srv.url) }));
      await next((e) => e.trial === 'ok2' && e.event === 'result');
      assert.deepEqual(readdirSync(results), ['ok2.json.gz'], 'the previous result goes when the next trial starts');
      const untagged = events.filter((e) => e.event === 'error' && e.trial === undefined).map((e) => String(e.message));
      assert.equal(untagged.length, 2, JSON.stringify(untagged));
      assert.match(untagged[0] ?? '', /^bad command: not JSON/);
      assert.match(untagged[1] ?? '', /^bad command: .*trial name/);
      const bad = events.find((e) => e.trial === 'bad');
      assert.deepEqual([bad?.event, String(bad?.message)], ['error', 'bad spec: workload.rows must be a list']);
      assert.ok(events.filter((e) => e.event !== 'ready').every((e) => e.trial !== undefined || e.event === 'error'), 'every trial event names its trial');
      child.stdin.end();
      assert.equal(await exited, 0);
      assert.equal(existsSync(results), false, 'its folder is removed when it ends');
    } finally {
      child.kill('SIGKILL');
      await srv.close();
      cleanup(dir);
    }
  });
});

describe('the client on the host through the local executor (one serving client for the trials)', () => {
  let srv: FakeServer;
  let client: HostClient;
  let cache: string;
  const saved = process.env.XDG_CACHE_HOME;

  before(async () => {
    srv = new FakeServer({ behaviour: STREAM });
    await srv.listen();
    cache = tempDir('autobench-host-cache-');
    process.env.XDG_CACHE_HOME = cache;
    const setup = await prepareHostClient(new LocalExecutor(), { bundle: await clientBundle() });
    assert.ok(setup.ok, setup.ok ? '' : setup.reason);
    client = setup.client;
  });

  after(async () => {
    await client.close();
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    await srv.close();
    cleanup(cache);
  });

  const trialsDir = () => path.join(cache, 'autobench', 'trials');
  const session = () => {
    assert.ok(client.session, 'the local executor pipes stdin: one client serves the trials');
    return client.session;
  };

  test('gives the result the in-process client gives', { timeout: 60_000 }, async () => {
    assert.ok(client.bundle.startsWith(path.join(cache, 'autobench', 'client-')));
    await compareWithInProcess(client, srv);
    assert.deepEqual(readdirSync(trialsDir()), [path.basename(session().dir)], 'only the serving client\'s folder');
  });

  test('one client serves trial after trial; a failed trial does not poison the next; a client killed between trials is started again', { timeout: 60_000 }, async () => {
    const run = (o: Partial<ReturnType<typeof trialBenchOptions>> = {}) => client.runTrial({ workload: workload(rows(6, 8)), options: { ...trialBenchOptions(srv.url, 'fake-model', settings()), ...o }, timeoutMs: 30_000 }, noHooks);
    assert.equal(done(await run()).result.metrics.completed, 6);
    const pid = session().pid;
    const starts = session().starts;
    assert.ok(pid !== undefined);
    const failed = await run({ baseUrl: 'http://127.0.0.1:9', readyCheckTimeoutS: 0 });
    assert.equal(failed.kind, 'error', JSON.stringify(failed));
    assert.match(failed.kind === 'error' ? failed.message : '', /127\.0\.0\.1:9/);
    for (let i = 0; i < 3; i++) assert.equal(done(await run()).result.metrics.completed, 6);
    assert.equal(session().pid, pid, 'the same process served every trial');
    assert.equal(session().starts, starts);
    // Dies between trials (a crash, the OOM killer): the next trial starts another and is measured.
    process.kill(-pid, 'SIGKILL');
    await pollUntil('the killed client to be gone', () => (processesWith(session().dir).length === 0 ? true : undefined));
    assert.equal(done(await run()).result.metrics.completed, 6);
    assert.notEqual(session().pid, pid);
    assert.equal(session().starts, starts + 1);
  });

  test('cancel kills the serving client at once; the next trial starts another', { timeout: 60_000 }, async () => {
    srv.setBehaviour({ itlMs: 50 });
    try {
      const ac = new AbortController();
      const o = await client.runTrial({ workload: workload(rows(8, 400)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 60_000 }, { ...noHooks, signal: ac.signal, onProgress: () => ac.abort() });
      assert.equal(o.kind, 'cancelled');
      assert.equal(session().pid, undefined);
      assert.deepEqual(processesWith(session().dir), [], 'nothing of the client is left running');
    } finally {
      srv.setBehaviour(STREAM);
    }
    assert.equal(done(await client.runTrial({ workload: workload(rows(4, 5)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 30_000 }, noHooks)).result.metrics.completed, 4);
  });

  test('a trial over its time limit is stopped and hands back what it measured (outcome timeout)', { timeout: 60_000 }, async () => {
    srv.setBehaviour({ itlMs: 100 });
    const pid = session().pid ?? (await client.runTrial({ workload: workload(rows(1, 1)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 30_000 }, noHooks), session().pid);
    try {
      const w = workload(rows(4, 200));
      const o = await client.runTrial({ workload: w, options: trialBenchOptions(srv.url, 'fake-model', settings({ concurrency: 4, warmupRequests: 0 })), timeoutMs: 1500 }, noHooks);
      assert.equal(o.kind, 'timeout');
      assert.ok('result' in o && o.result?.aborted === true, 'the partial result came back');
      assert.equal(o.result.records.length, 4);
      assert.ok(o.result.records.every((r) => !r.success && r.errorKind === 'aborted'), JSON.stringify(o.result.records[0]));
      assert.equal(session().pid, pid, 'the client stopped the trial and stays up for the next');
    } finally {
      srv.setBehaviour(STREAM);
    }
  });

  test('a second trial while the serving client is busy gets a client of its own; both are measured', { timeout: 60_000 }, async () => {
    const trial = () => client.runTrial({ workload: workload(rows(6, 20)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 30_000 }, noHooks);
    const starts = session().starts;
    const [a, b] = await Promise.all([trial(), trial()]);
    assert.equal(done(a).result.metrics.completed, 6);
    assert.equal(done(b).result.metrics.completed, 6);
    assert.equal(session().starts, starts, 'the serving client ran one of them');
    assert.deepEqual(readdirSync(trialsDir()), [path.basename(session().dir)], "the other client's folder is gone");
  });

  // Last in this block: a closed client serves no more trials.
  test('close() ends the client (its input closed) and removes its folder', { timeout: 30_000 }, async () => {
    const dir = session().dir;
    assert.ok(session().pid !== undefined && existsSync(dir));
    await client.close();
    assert.deepEqual(processesWith(dir), []);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(readdirSync(trialsDir()), []);
  });
});

describe('the client on the host through ssh (a real sshd on 127.0.0.1)', { skip: skipWhenMissing(sshdMissing()) }, () => {
  let sshd: Sshd;
  let ex: SshExecutor;
  let srv: FakeServer;
  let cache: string;

  before(async () => {
    srv = new FakeServer({ behaviour: STREAM });
    await srv.listen();
    cache = tempDir('autobench-host-cache-');
    sshd = await startSshd({ extraConfig: `SetEnv PATH=${path.dirname(process.execPath)}:/usr/bin:/bin XDG_CACHE_HOME=${cache}` });
    ex = await connectTo(sshd);
    process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
  });

  after(() => teardown(ex, sshd, srv, cache));

  test('the bundle is copied once (checked by sha256) and gives the in-process result', { timeout: 90_000 }, async () => {
    const setup = await prepareHostClient(ex);
    assert.ok(setup.ok, setup.ok ? '' : setup.reason);
    const copied = statSync(setup.client.bundle).mtimeMs;
    const again = await prepareHostClient(ex);
    assert.ok(again.ok);
    assert.equal(again.client.bundle, setup.client.bundle);
    assert.equal(statSync(again.client.bundle).mtimeMs, copied, 'an identical bundle is not copied again');
    await compareWithInProcess(setup.client, srv);
  });

  test('the trial runner puts the client on the host and says so', { timeout: 60_000 }, async () => {
    resetHostClient(ex);
    const fwd = await ex.forward(srv.port);
    try {
      const o = await runPlacedTrial(ex, liveServer(srv, fwd), workload(rows(8, 10)), settings(), noHooks);
      assert.equal(o.kind, 'done');
      assert.equal(o.client.placement, 'host');
      assert.equal(o.client.base_url, `http://127.0.0.1:${srv.port}`);
      assert.equal(o.client.node_version, process.version);
    } finally {
      await fwd.close();
    }
  });

  test('cancel kills the client on the host: nothing of it is left running', { timeout: 60_000 }, async () => {
    const setup = await prepareHostClient(ex);
    assert.ok(setup.ok);
    srv.setBehaviour({ itlMs: 50 });
    try {
      const ac = new AbortController();
      let progressed = false;
      const o = await setup.client.runTrial(
        { workload: workload(rows(16, 400)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 60_000 },
        {
          ...noHooks,
          signal: ac.signal,
          onProgress: () => {
            if (progressed) return;
            progressed = true;
            assert.ok(processesWith(path.join(cache, 'autobench')).length > 0, 'the client runs on the host');
            ac.abort();
          },
        },
      );
      assert.ok(progressed, 'the client reported progress');
      assert.equal(o.kind, 'cancelled');
      assert.deepEqual(processesWith(path.join(cache, 'autobench')), []);
      assert.deepEqual(readdirSync(path.join(cache, 'autobench', 'trials')), []);
    } finally {
      srv.setBehaviour(STREAM);
    }
  });
});

describe('without a usable node on the host the trial goes through the port forward', { skip: skipWhenMissing(sshdMissing()) }, () => {
  let sshd: Sshd;
  let ex: Executor;
  let srv: FakeServer;
  let dir: string;

  before(async () => {
    srv = new FakeServer({ behaviour: STREAM });
    await srv.listen();
    dir = tempDir('autobench-old-node-');
    // The host's node and nodejs say they are 18 (too old for the client); anything else they run as the real one.
    const bin = oldNodeShims(dir, process.execPath);
    sshd = await startSshd({ extraConfig: `SetEnv PATH=${bin}:/usr/bin:/bin XDG_CACHE_HOME=${path.join(dir, 'cache')}` });
    ex = await connectTo(sshd);
    process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
  });

  after(() => teardown(ex, sshd, srv, dir));

  test("placement 'forward', why, and the forward's overhead under the trial's load", { timeout: 60_000 }, async () => {
    const fwd = await ex.forward(srv.port);
    try {
      const o = await runPlacedTrial(ex, liveServer(srv, fwd), workload(rows(32, 60)), settings(), noHooks);
      assert.equal(o.kind, 'done');
      assert.equal(o.client.placement, 'forward');
      assert.equal(o.client.base_url, `http://127.0.0.1:${fwd.localPort}`);
      assert.match(o.client.fallback_reason ?? '', /no Node >= 20 on the host \(found v18\.19\.0 at .*\/node/);
      const load = o.client.forward_overhead;
      assert.ok(load && load.samples > 0 && load.rtt_p50_ms !== null, JSON.stringify(load));
      assert.equal(load.host_probe, 'node');
      assert.ok(load.host_rtt_p50_ms !== null && load.overhead_p50_ms !== null, JSON.stringify(load));
      assert.ok(!existsSync(path.join(dir, 'cache', 'autobench', 'trials')) || readdirSync(path.join(dir, 'cache', 'autobench', 'trials')).length === 0);
    } finally {
      await fwd.close();
    }
  });

  // Last in this block: the node it brings stays in the host's folder, where the next look finds it.
  test('asked to, it brings node from a binary package (digest checked), unpacks it on the host and runs the client with it', { timeout: 60_000 }, async () => {
    // A stand-in for node-linux-<arch>: package/bin/node that says v20.99.0 and otherwise runs this node.
    const stage = path.join(dir, 'stage', 'package', 'bin');
    mkdirSync(stage, { recursive: true });
    writeFileSync(path.join(stage, 'node'), `#!/bin/sh\n[ "$1" = --version ] && { echo v20.99.0; exit 0; }\nexec ${process.execPath} "$@"\n`);
    chmodSync(path.join(stage, 'node'), 0o755);
    const tgz = path.join(dir, 'node-fake-20.99.0.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', path.join(dir, 'stage'), 'package']);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
    let fetched = 0;
    const source = (digest: string): NodeSource => ({
      version: '20.99.0',
      packages: { 'linux-x64': { name: 'node-fake', integrity: digest }, 'linux-arm64': { name: 'node-fake', integrity: digest } },
      fetch: (pkg, version, into) => {
        fetched++;
        const to = path.join(into, `${pkg.name}-${version}.tgz`);
        copyFileSync(tgz, to);
        return Promise.resolve(to);
      },
    });
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(dir, 'here-cache');
    const brought = path.join(dir, 'cache', 'autobench', `node-v20.99.0-${process.arch === 'arm64' ? 'linux-arm64' : 'linux-x64'}`);
    try {
      const refused = await prepareHostClient(ex, { bringNode: source('sha512-AAAA') });
      assert.equal(refused.ok, false);
      assert.match(refused.ok ? '' : refused.reason, /found v18\.19\.0.*bringing one failed: node-fake@20\.99\.0 does not match its pinned sha512/);
      const setup = await prepareHostClient(ex, { bringNode: source(integrity) });
      assert.ok(setup.ok, setup.ok ? '' : setup.reason);
      assert.equal(fetched, 1, 'the tarball fetched here was checked and kept, not fetched again');
      assert.deepEqual(setup.client.node, { path: path.join(brought, 'bin', 'node'), version: 'v20.99.0' });
      assert.deepEqual(readdirSync(brought), ['bin'], 'only the binary is kept');
      const o = await setup.client.runTrial({ workload: workload(rows(4, 5)), options: trialBenchOptions(srv.url, 'fake-model', settings()), timeoutMs: 30_000 }, noHooks);
      assert.equal(done(o).result.metrics.completed, 4);
      // A later run finds it in the host's folder without asking.
      const later = await prepareHostClient(ex);
      assert.ok(later.ok && later.client.node.path === path.join(brought, 'bin', 'node'));
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
      rmSync(brought, { recursive: true, force: true });
    }
  });
});
