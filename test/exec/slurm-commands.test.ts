// Slurm's command lines and answers: sbatch for a candidate's job (argv, never a shell string), srun steps, and the parsers of squeue, sacct, sinfo and scontrol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOLD_SCRIPT, finishArgv, parseJobId, parseNodeAddr, parseSacct, parseSqueue, sbatchArgv, srunAllocationArgv, srunArgv } from '../../src/exec/slurm/commands';

test('sbatch: one word per option, the plan\'s settings, GRES from the candidate, the holding script last', () => {
  const argv = sbatchArgv({ name: 'autobench-run-vllm-c1-search', partition: 'gpu', account: 'ml', qos: 'high', timeLimit: '02:00:00', gres: 'gpu', gpus: 4, constraint: 'h100', exclusive: true, output: '/runs/x/slurm/a-%j.out', chdir: '/runs/x', extra: ['--reservation=bench'] });
  assert.deepEqual(argv, ['sbatch', '--parsable', '--job-name=autobench-run-vllm-c1-search', '--time=02:00:00', '--nodes=1', '--ntasks=1', '--output=/runs/x/slurm/a-%j.out', '--chdir=/runs/x', '--partition=gpu', '--account=ml', '--qos=high', '--constraint=h100', '--gres=gpu:4', '--exclusive', '--reservation=bench', '--wrap', HOLD_SCRIPT]);
  const none = sbatchArgv({ name: 'n', timeLimit: '10', gres: 'gpu', gpus: 0, exclusive: false, output: 'o', chdir: 'd', extra: [] });
  assert.ok(!none.some((a) => a.startsWith('--gres') || a === '--exclusive' || a.startsWith('--partition')));
  // TERM to the batch step ends the job COMPLETED (the holding script traps it).
  assert.match(HOLD_SCRIPT, /trap 'exit 0' TERM/);
  assert.deepEqual(finishArgv('42'), ['scancel', '--batch', '--signal=TERM', '42']);
});

test('srun steps share the job (--overlap); the command follows --, untouched; a container image when the plan names one', () => {
  assert.deepEqual(srunArgv({ jobId: '7' }, ['vllm', 'serve', 'a b', '--x=$(y)']), ['srun', '--jobid=7', '--overlap', '--nodes=1', '--ntasks=1', '--export=ALL', '--', 'vllm', 'serve', 'a b', '--x=$(y)']);
  assert.ok(srunArgv({ jobId: '7', containerImage: 'nvcr.io/nvidia/vllm:25.01' }, ['x']).includes('--container-image=nvcr.io/nvidia/vllm:25.01'));
  // Before any job exists (--help, version): an allocation of its own in the plan's partition, account and node type.
  assert.deepEqual(srunAllocationArgv({ partition: 'gpu', account: 'ml', constraint: 'h100' }, ['vllm', '--version']), ['srun', '--partition=gpu', '--nodes=1', '--ntasks=1', '--time=10', '--export=ALL', '--account=ml', '--constraint=h100', '--', 'vllm', '--version']);
});

test('parsers: sbatch ids, squeue and sacct rows (N/A times dropped, CANCELLED by 0 read as CANCELLED), NodeAddr (sinfo: test/extension/slurm-targets.test.ts)', () => {
  assert.equal(parseJobId('123\n'), '123');
  assert.equal(parseJobId('123;cluster\n'), '123');
  assert.equal(parseJobId('sbatch: error: x'), undefined);
  assert.deepEqual(parseSqueue('9|RUNNING|node1|2026-12-01T19:33:44|2026-12-08T19:33:44|None\n10|PENDING||N/A|N/A|Resources\n'), [
    { id: '9', state: 'RUNNING', nodes: 'node1', start: '2026-12-01T19:33:44', end: '2026-12-08T19:33:44' },
    { id: '10', state: 'PENDING', nodes: '', reason: 'Resources' },
  ]);
  assert.deepEqual(parseSacct('9|CANCELLED by 0|node1|2026-12-01T19:33:44|2026-12-01T19:33:46\n11|COMPLETED|node2|2026-12-01T19:40:00|Unknown\n'), [
    { id: '9', state: 'CANCELLED', nodes: 'node1', start: '2026-12-01T19:33:44', end: '2026-12-01T19:33:46' },
    { id: '11', state: 'COMPLETED', nodes: 'node2', start: '2026-12-01T19:40:00' },
  ]);
  assert.equal(parseNodeAddr('NodeName=localhost Arch=x86_64 CoresPerSocket=1\n   NodeAddr=127.0.0.1 NodeHostName=vm'), '127.0.0.1');
});
