// A candidate across Slurm nodes: how GPUs split over nodes, the sbatch/srun shapes (TensorRT-LLM's MPI world: a task per GPU), and each framework's multi-node launch — the script run by a real `sh` with hostile words, so that only the rank is ever expanded.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { sbatchArgv, srunArgv, parseHostnames } from '../../src/exec/slurm/commands';
import { headArgv, multiNodeScript, multiNodeUnsupported, splitOverNodes, withoutMultiNodeFlags, type MultiNodeSpec } from '../../src/exec/slurm/multinode';
import { SlurmJobExecutor, type JobPlace } from '../../src/exec/slurm/job-executor';
import type { LocalExecutor } from '../../src/exec/local';
import type { ServerProcess, StartSpec } from '../../src/exec/types';
import { shlexJoin } from '../../src/core/candidates/shell';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseHelp } from '../../src/core/help/parse';
import { HELP } from '../support/fixtures';

const HOSTILE = ['python', '-m', 'sglang.launch_server', '--model-path', "it's a $(touch /tmp/pwned) `x` model", '--served-model-name', 'a b;c|d&e', '--chat-template', '"$HOME"\\n*'];

/** What `sh -c SCRIPT` execs on node `rank`: its argv, one word a line (printf in place of exec's program). */
function execOf(script: string, rank: number): string[] {
  // exec WORDS -> run `printf '%s\n' WORDS` instead: same expansion, nothing started.
  const probe = script.replaceAll(' exec ', " printf '%s\\n' ");
  const r = spawnSync('sh', ['-c', probe], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_NODEID: String(rank), HOME: '/root' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').slice(0, -1);
}

const spec = (framework: FrameworkKey, headAddress = '10.0.0.7'): MultiNodeSpec => ({ framework, nodes: 2, gpusPerNode: 2, headAddress, port: 29500 });

describe('splitOverNodes', () => {
  test('fits one node: one node, all the GPUs, multi_node or not', () => {
    assert.deepEqual(splitOverNodes({ gpus: 2, nodeGpus: 2, partitionNodes: 2, multiNode: false }), { nodes: 1, gpusPerNode: 2 });
    assert.deepEqual(splitOverNodes({ gpus: 1, nodeGpus: 8, partitionNodes: 1, multiNode: true }), { nodes: 1, gpusPerNode: 1 });
  });
  test('more GPUs than a node: K = ceil(gpus / node GPUs) equal shares', () => {
    assert.deepEqual(splitOverNodes({ gpus: 4, nodeGpus: 2, partitionNodes: 2, multiNode: true }), { nodes: 2, gpusPerNode: 2 });
    assert.deepEqual(splitOverNodes({ gpus: 16, nodeGpus: 8, partitionNodes: 4, multiNode: true }), { nodes: 2, gpusPerNode: 8 });
  });
  test('the candidate names its nodes (nnodes): that many, even when one node would do', () => {
    assert.deepEqual(splitOverNodes({ gpus: 8, nodeGpus: 8, partitionNodes: 4, multiNode: true, nodes: 2 }), { nodes: 2, gpusPerNode: 4 });
  });
  test('refusals say why: multi_node false, uneven split, too many per node, too few nodes', () => {
    const r = (a: Parameters<typeof splitOverNodes>[0]) => {
      const s = splitOverNodes(a);
      assert.ok('refused' in s, JSON.stringify(s));
      return s.refused;
    };
    assert.match(r({ gpus: 3, nodeGpus: 2, partitionNodes: 2, multiNode: false }), /^needs 3 GPUs \(--gres=gpu:3\) on one node; the nodes of the partition have at most 2, and hardware\.multi_node is not true/);
    assert.match(r({ gpus: 3, nodeGpus: 2, partitionNodes: 2, multiNode: true }), /3 GPUs do not split evenly over 2 nodes/);
    assert.match(r({ gpus: 6, nodeGpus: 2, partitionNodes: 2, multiNode: true, nodes: 2 }), /needs 3 GPUs on each of 2 nodes .*at most 2/);
    assert.match(r({ gpus: 8, nodeGpus: 2, partitionNodes: 2, multiNode: true }), /needs 4 nodes of 2 GPUs; the partition has 2 nodes/);
    assert.match(r({ gpus: 2, nodeGpus: 2, partitionNodes: 2, multiNode: false, nodes: 2 }), /asks for 2 nodes, and hardware\.multi_node is not true/);
  });
  test('every framework is launched across nodes; TensorRT-LLM refuses only words its launcher would re-split', () => {
    for (const fw of ['sglang', 'vllm', 'tokenspeed', 'tensorrt_llm'] as const) assert.equal(multiNodeUnsupported(fw, ['serve', 'org/m', '--tp_size', '4']), undefined);
    assert.equal(multiNodeUnsupported('sglang', HOSTILE), undefined, 'a sh -c script quotes every word');
    for (const w of ['my model', 'a*', 'x?', '[y]', 'tab\tz', '']) {
      assert.match(multiNodeUnsupported('tensorrt_llm', ['trtllm-serve', 'serve', w]) ?? '', /^trtllm-llmapi-launch re-splits its command on blanks \(and expands \* \? \[\), so the word .* would not reach trtllm-serve as one word$/, JSON.stringify(w));
    }
    // Quotes, $ and ; stay one word through the launcher's unquoted expansion (no second parse): allowed.
    assert.equal(multiNodeUnsupported('tensorrt_llm', ['trtllm-serve', 'serve', "it's$(x);y|z`w`"]), undefined);
  });
});

describe('sbatch and srun shapes', () => {
  const req = { name: 'j', timeLimit: '10', gres: 'gpu', gpus: 2, exclusive: false, output: '/o', chdir: '/d', extra: [] };
  test('one node as before; K nodes: --nodes=K --ntasks=K --ntasks-per-node=1 and the GRES per node', () => {
    const one = sbatchArgv(req);
    assert.ok(one.includes('--nodes=1') && one.includes('--ntasks=1') && !one.some((a) => a.startsWith('--ntasks-per-node')));
    const two = sbatchArgv({ ...req, nodes: 2 });
    for (const a of ['--nodes=2', '--ntasks=2', '--ntasks-per-node=1', '--gres=gpu:2']) assert.ok(two.includes(a), `${a} in ${two.join(' ')}`);
    assert.ok(!two.includes('--nodes=1'));
  });
  test('a server step spans the nodes; a one-task step can be pinned to the head', () => {
    const all = srunArgv({ jobId: '7', nodes: 2 }, ['sh', '-c', 'x']);
    assert.deepEqual(all.slice(0, 6), ['srun', '--jobid=7', '--overlap', '--nodes=2', '--ntasks=2', '--ntasks-per-node=1']);
    assert.deepEqual(all.slice(-4), ['--', 'sh', '-c', 'x']);
    assert.ok(srunArgv({ jobId: '7', nodelist: 'n1' }, ['node']).includes('--nodelist=n1'));
  });
  test('an MPI world (TensorRT-LLM): K nodes × G tasks; the step asks for the MPI plugin and dies with a failed task', () => {
    const two = sbatchArgv({ ...req, nodes: 2, tasksPerNode: 2 });
    for (const a of ['--nodes=2', '--ntasks=4', '--ntasks-per-node=2', '--gres=gpu:2']) assert.ok(two.includes(a), `${a} in ${two.join(' ')}`);
    const eight = sbatchArgv({ ...req, gpus: 8, nodes: 4, tasksPerNode: 8 });
    for (const a of ['--nodes=4', '--ntasks=32', '--ntasks-per-node=8', '--gres=gpu:8']) assert.ok(eight.includes(a), `${a} in ${eight.join(' ')}`);
    const step = srunArgv({ jobId: '7', nodes: 2, tasksPerNode: 2, mpi: 'pmix' }, ['trtllm-llmapi-launch', 'x']);
    assert.deepEqual(step.slice(0, 9), ['srun', '--jobid=7', '--overlap', '--nodes=2', '--ntasks=4', '--ntasks-per-node=2', '--mpi=pmix', '--kill-on-bad-exit=1', '--export=ALL']);
    assert.ok(!srunArgv({ jobId: '7', nodes: 2 }, ['x']).some((a) => a.startsWith('--mpi')), 'a per-node launch leaves MPI to the cluster default');
  });
  test('scontrol show hostnames: one name a line', () => {
    assert.deepEqual(parseHostnames('n1\nn2\n'), ['n1', 'n2']);
  });
});

describe('the multi-node launch script (run by sh)', () => {
  test('SGLang: rank 0 runs exactly the recorded head command; rank 1 the same with its rank; hostile words stay words', () => {
    const m = spec('sglang');
    const head = headArgv(m, HOSTILE);
    assert.deepEqual(head, [...HOSTILE, '--nnodes', '2', '--node-rank', '0', '--dist-init-addr', '10.0.0.7:29500']);
    const script = multiNodeScript(m, HOSTILE);
    assert.deepEqual(execOf(script, 0), head);
    assert.deepEqual(execOf(script, 1), [...HOSTILE, '--nnodes', '2', '--node-rank', '1', '--dist-init-addr', '10.0.0.7:29500']);
    assert.ok(!existsSync('/tmp/pwned'), 'no command substitution ran');
  });
  test('TokenSpeed: the same flags as SGLang on every rank, never --headless (its serve runs the engine alone on ranks > 0; --headless is the external-frontend mode)', () => {
    const argv = ['tokenspeed', 'serve', '--model', 'm x'];
    const script = multiNodeScript(spec('tokenspeed'), argv);
    assert.deepEqual(execOf(script, 0), [...argv, '--nnodes', '2', '--node-rank', '0', '--dist-init-addr', '10.0.0.7:29500']);
    assert.deepEqual(execOf(script, 1), [...argv, '--nnodes', '2', '--node-rank', '1', '--dist-init-addr', '10.0.0.7:29500']);
    // A candidate's own --headless is the launch's to decide: the head never gets it.
    assert.deepEqual(execOf(multiNodeScript(spec('tokenspeed'), [...argv, '--headless']), 0), [...argv, '--nnodes', '2', '--node-rank', '0', '--dist-init-addr', '10.0.0.7:29500']);
  });
  test('vLLM: --master-addr/--master-port; ranks > 0 --headless; the head is not headless', () => {
    const argv = ['vllm', 'serve', "Qwen/it's", '--tensor-parallel-size', '2', '--pipeline-parallel-size', '2'];
    const script = multiNodeScript(spec('vllm', 'head host'), argv);
    assert.deepEqual(execOf(script, 0), [...argv, '--nnodes', '2', '--node-rank', '0', '--master-addr', 'head host', '--master-port', '29500']);
    assert.deepEqual(execOf(script, 1), [...argv, '--nnodes', '2', '--node-rank', '1', '--master-addr', 'head host', '--master-port', '29500', '--headless']);
  });
  test("the candidate's own multi-node words are replaced, not doubled (--nnodes 2, --node-rank=0, vLLM's -n)", () => {
    const argv = ['python', '-m', 'sglang.launch_server', '--nnodes', '2', '--node-rank=0', '--dist-init-addr', 'x:1', '--tp-size', '4'];
    assert.deepEqual(withoutMultiNodeFlags('sglang', argv), ['python', '-m', 'sglang.launch_server', '--tp-size', '4']);
    assert.deepEqual(withoutMultiNodeFlags('vllm', ['vllm', 'serve', 'm', '-n', '2', '--headless', '--master-port=1']), ['vllm', 'serve', 'm']);
    assert.deepEqual(withoutMultiNodeFlags('sglang', ['x', '-n', '2']), ['x', '-n', '2'], 'SGLang has no -n: left alone');
  });
  test('a rank from the environment is the only expansion: a hostile SLURM_NODEID stays one word', () => {
    const script = multiNodeScript(spec('sglang'), ['prog']);
    const probe = script.replaceAll(' exec ', " printf '%s\\n' ");
    const r = spawnSync('sh', ['-c', probe], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_NODEID: '1 $(echo no) *' }, encoding: 'utf8' });
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), ['prog', '--nnodes', '2', '--node-rank', '1 $(echo no) *', '--dist-init-addr', '10.0.0.7:29500']);
  });
});

describe('TensorRT-LLM across nodes: the server step as srun runs it', () => {
  /** The argv a SlurmJobExecutor hands the login host for a start (no process is started). */
  async function startedArgv(place: JobPlace, argv: string[]): Promise<string[]> {
    let seen: readonly string[] = [];
    const login = { start: (s: StartSpec) => ((seen = s.argv), Promise.resolve({} as ServerProcess)) } as unknown as LocalExecutor;
    await new SlurmJobExecutor(login, place).start({ argv });
    return [...seen];
  }
  const argv = ['trtllm-serve', 'serve', "/models/it's $(touch /tmp/pwned) `x`;rm", '--backend', 'pytorch', '--tp_size', '2', '--pp_size', '2'];
  const place = (mpi?: string): JobPlace => ({
    jobId: '42',
    node: 'n1',
    nodes: ['n1', 'n2'],
    address: '10.0.0.7',
    multiNode: { framework: 'tensorrt_llm', nodes: 2, gpusPerNode: 2, headAddress: '10.0.0.7', port: 29500, serverArgv: argv, ...(mpi ? { mpi } : {}) },
  });

  test('one step, 2 nodes × 2 tasks under srun --mpi=pmix, each trtllm-llmapi-launch and the words as given (no shell)', async () => {
    const withKey = [...argv, '--extra_llm_api_options', '/run/key file.yaml'];
    const step = await startedArgv(place(), withKey);
    assert.deepEqual(step, ['srun', '--jobid=42', '--overlap', '--nodes=2', '--ntasks=4', '--ntasks-per-node=2', '--mpi=pmix', '--kill-on-bad-exit=1', '--export=ALL', '--', 'trtllm-llmapi-launch', ...withKey]);
    assert.ok(!step.includes('sh') && !step.some((w) => w.startsWith('--nnodes') || w.startsWith('--node-rank')), 'no rank flags: MPI gives the ranks');
  });

  test('the plan\'s MPI type replaces pmix; a command that is not the server stays one task on the head', async () => {
    assert.ok((await startedArgv(place('pmi2'), argv)).includes('--mpi=pmi2'));
    const probe = await startedArgv(place(), ['node', '-e', '1']);
    assert.deepEqual(probe.slice(0, 6), ['srun', '--jobid=42', '--overlap', '--nodes=1', '--ntasks=1', '--nodelist=n1']);
  });

  test('the recorded head command is what rank 0 ran, shell-quoted: hostile words stay words when sh reads it back', () => {
    const ex = new SlurmJobExecutor({} as LocalExecutor, place());
    const head = ex.headCommand() ?? [];
    assert.deepEqual(head, ['trtllm-llmapi-launch', ...argv]);
    const line = shlexJoin(head);
    const r = spawnSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), head);
    assert.ok(!existsSync('/tmp/pwned'), 'no command substitution ran');
  });
});

describe('audit #6: a multi-node vLLM launch needs the --nnodes of vLLM >= 0.11.2', () => {
  const optionsOf = (version: string): string[] => parseHelp(readFileSync(path.join(HELP, 'vllm', version, 'vllm_serve_all.txt'), 'utf8'), { framework: 'vllm', role: 'server' }).optionStrings;
  const argv = ['vllm', 'serve', 'm', '--tensor-parallel-size', '8'];
  test('the captured help decides: 0.11.0 lacks --nnodes (skipped with the reason), 0.11.2 has it', () => {
    assert.equal(multiNodeUnsupported('vllm', argv, { options: optionsOf('v0.11.0'), version: '0.11.0' }), 'vLLM 0.11.0 has no --nnodes (multi-node needs vLLM ≥ 0.11.2)');
    assert.equal(multiNodeUnsupported('vllm', argv, { options: optionsOf('v0.11.2'), version: '0.11.2' }), undefined);
  });
  test('no flag list: the captured version decides; nothing captured: the launch is tried', () => {
    assert.match(multiNodeUnsupported('vllm', argv, { version: '0.10.2' }) ?? '', /^vLLM 0\.10\.2 has no --nnodes/);
    assert.equal(multiNodeUnsupported('vllm', argv, { version: '0.12.0' }), undefined);
    assert.equal(multiNodeUnsupported('vllm', argv, {}), undefined);
    assert.equal(multiNodeUnsupported('sglang', argv, { version: '0.10.2' }), undefined, 'other frameworks are not judged by vLLM versions');
  });
});
