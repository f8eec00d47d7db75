// What `autobench run` prints while it runs: a candidate's launch command on stderr without a value named as a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Progress } from '../../src/cli/run-progress';

test('the launch command a candidate prints keeps no --api-key value, whatever its shape', () => {
  const err = new PassThrough();
  let text = '';
  err.on('data', (d: Buffer) => (text += d.toString()));
  const io = { out: new PassThrough() as unknown as NodeJS.WriteStream, err: err as unknown as NodeJS.WriteStream };
  const p = new Progress(io, false);
  p.on({ type: 'candidate-start', framework: 'sglang', candidateId: 'baseline', index: 0, of: 1, command: 'python -m sglang.launch_server --model-path m --api-key plainKey42 --port 30000' });
  assert.match(text, /--api-key <redacted> --port 30000/);
  assert.ok(!text.includes('plainKey42'));
});
