// The plan's slurm: block: read once into the run plan, every bad value a problem that names the key and the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SLURM_TIME_LIMIT, readPlanSlurm } from '../../../src/core/plan/slurm';

test('absent: no block; present: every setting, the defaults for the rest', () => {
  const problems: string[] = [];
  assert.equal(readPlanSlurm({}, problems), undefined);
  assert.deepEqual(readPlanSlurm({ slurm: { partition: 'h100', account: 'ml', qos: 'high', time_limit: 90, gres: 'gpu', constraint: 'h100', container_image: 'nvcr.io/nvidia/vllm:25.01', sbatch_args: ['--reservation=bench'], mpi: 'pmi2' } }, problems), {
    partition: 'h100', account: 'ml', qos: 'high', timeLimit: '90', gres: 'gpu', constraint: 'h100', containerImage: 'nvcr.io/nvidia/vllm:25.01', sbatchArgs: ['--reservation=bench'], mpi: 'pmi2',
  });
  assert.deepEqual(readPlanSlurm({ slurm: {} }, problems), { timeLimit: DEFAULT_SLURM_TIME_LIMIT, gres: 'gpu', sbatchArgs: [] });
  assert.deepEqual(problems, []);
});

test('bad values are problems naming the key: a shell-looking partition, a bad time, an option autobench sets per job', () => {
  const problems: string[] = [];
  readPlanSlurm({ slurm: { partition: 'gpu; rm -rf /', time_limit: 'two hours', sbatch_args: ['--gres=gpu:8', 3], container_image: 'a b', mpi: 'pmix; x' } }, problems);
  assert.equal(problems.length, 6, problems.join('\n'));
  assert.match(problems.join('\n'), /slurm\.mpi must be one word/);
  assert.match(problems.join('\n'), /slurm\.partition must be one word/);
  assert.match(problems.join('\n'), /slurm\.time_limit must be a Slurm time/);
  assert.match(problems.join('\n'), /--gres is set by autobench for each candidate's job; remove it/);
  assert.match(problems.join('\n'), /slurm\.sbatch_args: each item must be one sbatch argument as a string/);
  assert.match(problems.join('\n'), /slurm\.container_image must be an image reference without spaces/);
  const notMap: string[] = [];
  readPlanSlurm({ slurm: 'gpu' }, notMap);
  assert.match(notMap[0] ?? '', /slurm must be a mapping/);
});
