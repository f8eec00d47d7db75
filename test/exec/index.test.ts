// Target strings: what the CLI's --target accepts and what it opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerExecutor, LocalExecutor, openExecutor, parseTarget } from '../../src/exec/index';

test('parseTarget: sim, local, ssh:<host>, slurm[:PARTITION]; junk and option-looking hosts or partitions are refused', () => {
  assert.deepEqual(parseTarget('sim'), { kind: 'sim' });
  assert.deepEqual(parseTarget('local'), { kind: 'local' });
  assert.deepEqual(parseTarget('ssh:gpu-box-1'), { kind: 'ssh', host: 'gpu-box-1' });
  assert.deepEqual(parseTarget('ssh:alice@10.0.0.5'), { kind: 'ssh', host: 'alice@10.0.0.5' });
  assert.throws(() => parseTarget('ssh:-oProxyCommand=x'), /invalid ssh target/);
  assert.throws(() => parseTarget('ssh:'), /invalid ssh target/);
  assert.deepEqual(parseTarget('slurm'), { kind: 'slurm' });
  assert.deepEqual(parseTarget('slurm:gpu-h100'), { kind: 'slurm', partition: 'gpu-h100' });
  assert.throws(() => parseTarget('slurm:'), /invalid slurm target/);
  assert.throws(() => parseTarget('slurm:-p'), /invalid slurm target/);
  assert.throws(() => parseTarget('slurm:a b'), /invalid slurm target/);
  assert.throws(() => parseTarget('k8s:x'), /expected sim, local, ssh:<host> or slurm\[:PARTITION\]/);
});

test('openExecutor: local, local in a container; sim is the runner\'s', async () => {
  const local = await openExecutor('local');
  assert.ok(local instanceof LocalExecutor);
  assert.equal((await local.run(['echo', 'hi'])).stdout, 'hi\n');
  const wrapped = await openExecutor('local', { container: { engine: 'podman', mode: { kind: 'exec', container: 'c1' } } });
  assert.ok(wrapped instanceof ContainerExecutor);
  assert.equal(wrapped.target, 'local+podman');
  await assert.rejects(openExecutor('sim'), /built by the runner/);
  await assert.rejects(openExecutor('slurm'), /built by the runner/);
});
