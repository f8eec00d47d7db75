// The simulated TensorRT-LLM in one MPI world: bin/sim's trtllm-llmapi-launch runs the simulated trtllm-serve on every
// task; rank 0 serves HTTP only when the world equals tp × pp, the other ranks wait quietly until TERM (exit 0), and
// without the launcher a task of a multi-task step is an ordinary server. Real processes from bin/sim.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runShimProcess } from '../support/sim';
import { modelWorldSize } from '../../src/sim/mpi-world';

const SERVE = ['trtllm-serve', 'serve', 'Qwen/Qwen3-8B', '--backend', 'pytorch', '--tp_size', '2', '--pp_size', '2', '--port', '0'];
const READY = /Uvicorn running on (http:\/\/127\.0\.0\.1:\d+)/;
const OPTS = { AUTOBENCH_SIM_OPTS: '--sim-speed 20 --sim-log-interval 0' };

describe('simulated trtllm-serve under trtllm-llmapi-launch (an MPI world of 4 tasks)', () => {
  test('rank 0 (SLURM_PROCID) serves HTTP and says it serves the world of 4', async () => {
    let models = '';
    const r = await runShimProcess('trtllm-llmapi-launch', SERVE, {
      env: { ...OPTS, SLURM_PROCID: '0', SLURM_NTASKS: '4', SLURMD_NODENAME: 'n1' },
      until: READY,
      onMatch: async (out) => {
        models = await (await fetch(`${READY.exec(out)?.[1] ?? ''}/v1/models`)).text();
      },
    });
    assert.equal(r.code, 0, r.stderr);
    const all = r.stdout + r.stderr;
    assert.match(all, /simulated trtllm-llmapi-launch\): mpi_rank 0 of 4 on n1: running trtllm-serve/);
    assert.match(all, /simulated TensorRT-LLM MPI world\): rank 0 of 4 on n1: serving HTTP/);
    assert.match(models, /"owned_by":"autobench-sim"/);
  });

  test('PMIX_RANK gives the rank when SLURM_PROCID is absent: rank 2 serves nothing, logs its place, exits 0 on TERM', async () => {
    const r = await runShimProcess('trtllm-llmapi-launch', SERVE, {
      env: { ...OPTS, PMIX_RANK: '2', SLURM_NTASKS: '4', SLURMD_NODENAME: 'n2' },
      until: /MPI worker/,
    });
    assert.equal(r.code, 0, r.stderr);
    const all = r.stdout + r.stderr;
    assert.match(all, /rank 2 of 4 on n2: MPI worker, no HTTP server on this rank; waiting until signalled/);
    assert.match(all, /rank 2 of 4: stopping/);
    assert.doesNotMatch(all, /Uvicorn running/);
  });

  test('a world that is not tp × pp: rank 0 exits 1 saying so; a rank outside the world too', async () => {
    const r = await runShimProcess('trtllm-llmapi-launch', SERVE.map((w) => (w === '2' ? '1' : w)), { env: { ...OPTS, SLURM_PROCID: '0', SLURM_NTASKS: '4' } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the MPI world has 4 processes but tp_size × pp_size × cp_size is 1/);
    const out = await runShimProcess('trtllm-llmapi-launch', SERVE, { env: { ...OPTS, SLURM_PROCID: '4', SLURM_NTASKS: '4' } });
    assert.equal(out.code, 1);
    assert.match(out.stderr, /MPI rank 4 is not in 0\.\.3/);
  });

  test('without the launcher, a task of a multi-task step is an ordinary server (rank > 0 or not)', async () => {
    const r = await runShimProcess('trtllm-serve', SERVE.slice(1), { env: { ...OPTS, SLURM_PROCID: '1', SLURM_NTASKS: '4' }, until: READY });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /MPI world/);
  });

  test('the launcher with no command exits 2; the model world size reads every click spelling', async () => {
    const r = await runShimProcess('trtllm-llmapi-launch', []);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no command to run/);
    assert.equal(modelWorldSize(['--tensor_parallel_size', '4', '--pipeline_parallel_size=2', '--cp_size', '2']), 16);
    assert.equal(modelWorldSize([]), 1);
  });
});
