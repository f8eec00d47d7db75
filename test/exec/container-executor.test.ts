// The container target over the local executor, with a stand-in engine CLI that records its argv and environment and runs the command as a container would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerExecutor, CONTAINER_PGID_MARKER } from '../../src/exec/container-executor';
import { LocalExecutor } from '../../src/exec/local';
import { groupMembers } from '../../src/exec/process-group';

const TOKEN = 'hf_' + 'CoNtAiNeRtOkEn0123456789ab';

// Emulates just enough of docker: `run` execs the command after the image (its env is what -e
// would copy in), `stop`/`rm` kill it, `exec` runs the command after the container name.
const FAKE = `#!/bin/sh
{ printf 'ARGV'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\\n'; printf 'CLI_HF_TOKEN=%s\\n' "\${HF_TOKEN:+set}"; } >> "$FAKE_DIR/calls.log"
case "$1" in
  run) shift; name=""
    while [ $# -gt 0 ]; do case "$1" in --name) name="$2"; shift 2 ;; img:tag) shift; break ;; *) shift ;; esac; done
    echo $$ > "$FAKE_DIR/$name.pid"; exec "$@" ;;
  stop) kill -TERM "$(cat "$FAKE_DIR/$4.pid")" 2>/dev/null; exit 0 ;;
  rm) kill -KILL "$(cat "$FAKE_DIR/$3.pid")" 2>/dev/null; rm -f "$FAKE_DIR/$3.pid"; exit 0 ;;
  exec) shift; while [ $# -gt 0 ]; do case "$1" in -e|-w) shift 2 ;; -i) shift ;; ctr1) shift; break ;; *) shift ;; esac; done; exec "$@" ;;
  image) echo 'sha256:1111|img:tag|img@sha256:2222' ;;
  container) echo 'img:tag|sha256:1111|true' ;;
  *) exit 2 ;;
esac
`;

describe('ContainerExecutor (stand-in engine)', () => {
  let dir: string;
  let engineBinary: string;
  let inner: LocalExecutor;
  const calls = (): string => readFileSync(join(dir, 'calls.log'), 'utf8');

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-ctr-'));
    engineBinary = join(dir, 'docker');
    writeFileSync(engineBinary, FAKE);
    chmodSync(engineBinary, 0o755);
    writeFileSync(join(dir, 'calls.log'), '');
    inner = new LocalExecutor({ baseEnv: { ...process.env, FAKE_DIR: dir }, secrets: (n) => (n === 'HF_TOKEN' ? TOKEN : undefined) });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('run mode: the runbook argv, the token only by name, teardown by stop + rm, nothing left', async () => {
    writeFileSync(join(dir, 'calls.log'), '');
    const ex = new ContainerExecutor(inner, {
      engine: 'docker',
      engineBinary,
      mode: { kind: 'run', image: 'img:tag', gpus: [6, 7], shmSize: '16g', hfCache: { hostPath: '/data/hf' }, namePrefix: 'ab-run1' },
    });
    assert.equal(ex.target, 'local+docker');
    const log = join(dir, 'server.log');
    let up: () => void = () => undefined;
    const ready = new Promise<void>((r) => (up = r));
    const server = await ex.start({
      argv: ['sh', '-c', 'echo "token=$HF_TOKEN"; echo up; exec sleep 1000'],
      env: { MODE: 'serve' },
      secretEnv: ['HF_TOKEN'],
      logFile: log,
      onLine: (l) => void (l === 'up' && up()),
    });
    await ready;
    assert.match(server.container, /^ab-run1-server-[0-9a-f]{8}$/);
    const runLine = calls().split('\n')[0] ?? '';
    assert.equal(
      runLine,
      `ARGV [run] [--rm] [--name] [${server.container}] [--gpus] ["device=6,7"] [--ipc=host] [--shm-size] [16g] [--network] [host] ` +
        `[-v] [/data/hf:/root/.cache/huggingface] [-e] [MODE=serve] [-e] [HF_TOKEN] [img:tag] [sh] [-c] [echo "token=$HF_TOKEN"; echo up; exec sleep 1000]`,
    );
    assert.match(calls(), /^CLI_HF_TOKEN=set$/m, 'the engine CLI had the token in its environment');
    const members = groupMembers(server.pgid) ?? [];
    assert.ok(members.length > 0);
    await server.stop({ graceMs: 1000 });
    const all = calls();
    assert.ok(all.includes(`ARGV [stop] [-t] [1] [${server.container}]`), all);
    assert.ok(all.includes(`ARGV [rm] [-f] [${server.container}]`), all);
    assert.ok(!all.includes(TOKEN), 'the token value reached an engine argv');
    assert.deepEqual(groupMembers(server.pgid), []);
    const text = readFileSync(log, 'utf8');
    assert.ok(!text.includes(TOKEN));
    assert.match(text, /^token=<redacted>$/m);
  });

  test('exec mode: the command runs under setsid in the container; stop kills its group there', async () => {
    const ex = new ContainerExecutor(inner, { engine: 'docker', engineBinary, mode: { kind: 'exec', container: 'ctr1' } });
    let up: () => void = () => undefined;
    const ready = new Promise<void>((r) => (up = r));
    const lines: string[] = [];
    const server = await ex.start({
      argv: ['sh', '-c', 'sleep 1000 & echo up; wait'],
      secretEnv: ['HF_TOKEN'],
      onLine: (l) => {
        lines.push(l);
        if (l === 'up') up();
      },
    });
    await ready;
    assert.ok(!lines.some((l) => l.startsWith(CONTAINER_PGID_MARKER)), 'the marker is not a log line');
    assert.ok(!server.logTail().some((l) => l.startsWith(CONTAINER_PGID_MARKER)));
    // The stand-in's "container" is this machine: find the group the marker named.
    const execLine = calls().split('\n').filter((l) => l.startsWith('ARGV [exec]')).pop() ?? '';
    assert.ok(execLine.startsWith('ARGV [exec] [-e] [HF_TOKEN] [ctr1] [setsid] [-w] [sh] [-c] '), execLine);
    const sleepers = (groupMembers(server.pgid) ?? []).length;
    assert.ok(sleepers >= 1);
    await server.stop({ graceMs: 1000 });
    // The kill script is multi-line: look at everything after its call.
    const all = calls();
    const killCall = all.slice(all.lastIndexOf('ARGV [exec] [ctr1] [sh] [-c] [P='));
    assert.match(killCall, /kill -s TERM -- -"\$P"/);
    const cpgid = Number(/P=(\d+)/.exec(killCall)?.[1]);
    assert.ok(cpgid > 1);
    assert.deepEqual(groupMembers(cpgid), [], 'the command inside the container survived');
    assert.deepEqual(groupMembers(server.pgid), []);
  });

  test('run() probes and image digests in both modes', async () => {
    const execEx = new ContainerExecutor(inner, { engine: 'docker', engineBinary, mode: { kind: 'exec', container: 'ctr1' } });
    assert.equal((await execEx.run(['echo', 'inside'])).stdout, 'inside\n');
    assert.deepEqual(await execEx.imageInfo(), { image: 'img:tag', id: 'sha256:1111', tags: ['img:tag'], digests: ['img@sha256:2222'] });
    const runEx = new ContainerExecutor(inner, { engine: 'docker', engineBinary, mode: { kind: 'run', image: 'img:tag' } });
    assert.equal((await runEx.run(['echo', 'fresh'])).stdout, 'fresh\n');
    assert.deepEqual((await runEx.imageInfo()).digests, ['img@sha256:2222']);
    assert.match(runEx.describe(), /^local \(pid \d+\), docker run img:tag$/);
  });

  test('copyTo() puts the file on the host (containers see it through a mounted volume), never through the engine', async () => {
    const ex = new ContainerExecutor(inner, { engine: 'docker', engineBinary, mode: { kind: 'exec', container: 'ctr1' } });
    const before = calls();
    writeFileSync(join(dir, 'in.txt'), 'bundle');
    await ex.copyTo(join(dir, 'in.txt'), join(dir, 'host', 'out.txt'));
    assert.equal(readFileSync(join(dir, 'host', 'out.txt'), 'utf8'), 'bundle');
    assert.equal(calls(), before, 'the engine CLI was not called');
  });
});
