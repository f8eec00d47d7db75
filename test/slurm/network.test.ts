// The test cluster's nodes are reached as on a real cluster: each at a NodeAddr that is not loopback (a network namespace
// of its own behind a bridge), so a server that binds 127.0.0.1 on a node answers there and not from the login host.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { SHIM_DIR, simBundle } from '../support/sim';
import { cancelJobs, ensureSlurm, jobPrefix, nodeProcesses, pollUntil, runCommand, type SlurmCluster } from '../support/slurm';
import { shlexQuote } from '../../src/core/candidates/shell';

const PREFIX = jobPrefix('network');

async function nodeAddrOf(node: string): Promise<string> {
  const r = await runCommand('scontrol', ['show', 'node', node]);
  const addr = /\bNodeAddr=(\S+)/.exec(r.stdout)?.[1];
  assert.ok(addr, `scontrol show node ${node}: ${r.stdout}${r.stderr}`);
  return addr;
}

/** GET /v1/models from this process (the login host): the status, or the connection error's code. */
async function fromLogin(url: string): Promise<string> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return String(r.status);
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    return cause?.code ?? (e as Error).name;
  }
}

describe('the test Slurm cluster reaches its nodes at addresses that are not loopback', { timeout: 300_000 }, () => {
  let cluster: SlurmCluster;
  before(async () => {
    cluster = await ensureSlurm();
  });
  after(async () => {
    await cancelJobs(PREFIX);
  });

  test('every node has a NodeAddr of its own that is not loopback', async () => {
    const nodes = [cluster.node, ...cluster.twoNodes.nodes];
    const addrs = await Promise.all(nodes.map(nodeAddrOf));
    for (const [i, a] of addrs.entries()) assert.doesNotMatch(a, /^(127\.|localhost$|::1$)/, `node ${nodes[i]} is reached at ${a}`);
    assert.equal(new Set(addrs).size, nodes.length, `one address per node: ${addrs.join(', ')}`);
    assert.equal(cluster.nodeAddr, addrs[0]);
  });

  /** Starts the simulated SGLang server as a one-GPU job on the node; returns the job id. */
  async function sglangJob(name: string, port: number, extra: string[]): Promise<string> {
    const js = await simBundle();
    const argv = ['python', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', String(port), ...extra];
    const script = `PATH=${shlexQuote(SHIM_DIR)}:$PATH AUTOBENCH_SIM_JS=${shlexQuote(js)} AUTOBENCH_NODE=${shlexQuote(process.execPath)} exec ${argv.map(shlexQuote).join(' ')}`;
    const r = await runCommand('sbatch', ['--parsable', '-p', cluster.partition, '--gres=gpu:1', '-J', PREFIX + name, '-o', '/dev/null', '--wrap', script]);
    assert.equal(r.code, 0, `sbatch: ${r.stderr}`);
    return r.stdout.trim().split(';')[0] ?? '';
  }

  /** Polls GET /v1/models on the node's own 127.0.0.1 (a step of the job) until it answers 200. */
  async function readyOnNode(job: string, port: number): Promise<void> {
    const probe = `fetch('http://127.0.0.1:${port}/v1/models').then((r)=>process.exit(r.status===200?0:1),()=>process.exit(2))`;
    await pollUntil(
      `the server of job ${job} to answer on the node's 127.0.0.1:${port}`,
      async () => ((await runCommand('srun', [`--jobid=${job}`, '--overlap', process.execPath, '-e', probe], 30_000)).code === 0 ? true : undefined),
      60_000,
    );
  }

  test('a simulated SGLang server without --host answers on the node but not at NodeAddr from the login host; with --host 0.0.0.0 it does', async () => {
    const port = randomInt(20_000, 40_000);
    const loop = await sglangJob('loopback', port, []);
    await readyOnNode(loop, port);
    assert.equal(await fromLogin(`http://${cluster.nodeAddr}:${port}/v1/models`), 'ECONNREFUSED', 'SGLang binds 127.0.0.1 by default: the login host must not reach it');
    await cancelJobs(PREFIX);
    assert.deepEqual(nodeProcesses(cluster.node, [loop]), []);

    const all = await sglangJob('all', port + 1, ['--host', '0.0.0.0']);
    await readyOnNode(all, port + 1);
    assert.equal(await fromLogin(`http://${cluster.nodeAddr}:${port + 1}/v1/models`), '200');
  });
});
