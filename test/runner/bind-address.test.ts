// The address each engine binds given its flags, and the --host 0.0.0.0 a launch adds where the runner reaches the server over a network (audit #1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameworkSpec } from '../../src/core/frameworks';
import { FRAMEWORKS } from '../../src/core/frameworks/types';
import { ContainerExecutor, LocalExecutor } from '../../src/exec';
import { isLoopbackHost } from '../../src/core/loopback';
import { bindHostOf, hostFlagOf, reachViaOf, withReachableHost } from '../../src/runner/bind-address';

test('each framework binds what the real engine binds with no --host: SGLang 127.0.0.1, trtllm-serve localhost, vLLM and the TokenSpeed gateway every interface', () => {
  assert.equal(bindHostOf('sglang', {}), '127.0.0.1');
  assert.equal(bindHostOf('tensorrt_llm', {}), 'localhost');
  assert.equal(bindHostOf('vllm', {}), '0.0.0.0');
  assert.equal(bindHostOf('tokenspeed', {}), '0.0.0.0');
  for (const fw of FRAMEWORKS) assert.equal(bindHostOf(fw, {}), frameworkSpec(fw).defaultHost);
});

test("the candidate's own host wins: its host flag, else a --host word of its argv", () => {
  assert.equal(bindHostOf('sglang', { host: '10.1.2.3' }), '10.1.2.3');
  assert.equal(bindHostOf('tensorrt_llm', {}, ['trtllm-serve', 'serve', 'm', '--host', '0.0.0.0']), '0.0.0.0');
  assert.equal(hostFlagOf({}, ['vllm', 'serve', '--host=::']), '::');
  assert.equal(hostFlagOf({}, ['vllm', 'serve', '--hostname', 'x']), undefined);
});

test('loopback names and addresses', () => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST']) assert.ok(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '10.213.0.11', 'node7', '']) assert.ok(!isLoopbackHost(h), h);
});

test('reached over a network, SGLang and TensorRT-LLM get --host 0.0.0.0 after their argv; vLLM and TokenSpeed are left as they are', () => {
  const sg = ['python', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', '30000'];
  assert.deepEqual(withReachableHost('sglang', sg, { model_path: 'Qwen/Qwen3-8B' }, 'network'), { argv: [...sg, '--host', '0.0.0.0'], added: ['--host', '0.0.0.0'] });
  const trt = ['trtllm-serve', 'serve', 'Qwen/Qwen3-8B', '--port', '8000'];
  assert.deepEqual(withReachableHost('tensorrt_llm', trt, {}, 'network').added, ['--host', '0.0.0.0']);
  assert.deepEqual(withReachableHost('vllm', ['vllm', 'serve', 'm'], {}, 'network'), { argv: ['vllm', 'serve', 'm'], added: [] });
  assert.deepEqual(withReachableHost('tokenspeed', ['ts', 'serve'], {}, 'network').added, []);
});

test('on loopback nothing is added; a candidate that sets its host keeps it (a loopback one is reported as unreachable)', () => {
  assert.deepEqual(withReachableHost('sglang', ['sglang', 'serve'], {}, 'loopback'), { argv: ['sglang', 'serve'], added: [] });
  assert.deepEqual(withReachableHost('sglang', ['x', '--host', '0.0.0.0'], { host: '0.0.0.0' }, 'network'), { argv: ['x', '--host', '0.0.0.0'], added: [] });
  const own = withReachableHost('tensorrt_llm', ['trtllm-serve', 'serve', 'm', '--host', 'localhost'], { host: 'localhost' }, 'network');
  assert.deepEqual(own.added, []);
  assert.match(own.unreachable ?? '', /--host localhost.*only on its own node/);
});

test('Slurm and a container with published ports are reached over a network; a local or host-network target on loopback', () => {
  const local = new LocalExecutor();
  assert.equal(reachViaOf({ kind: 'slurm', executor: local }), 'network');
  assert.equal(reachViaOf({ kind: 'local', executor: local }), 'loopback');
  assert.equal(reachViaOf({ kind: 'sim', executor: local }), 'loopback');
  const published = new ContainerExecutor(local, { engine: 'docker', mode: { kind: 'run', image: 'img', network: { publish: [{ hostPort: 8000, containerPort: 8000 }] } } });
  assert.equal(reachViaOf({ kind: 'local', executor: published }), 'network');
  const hostNet = new ContainerExecutor(local, { engine: 'docker', mode: { kind: 'run', image: 'img', network: 'host' } });
  assert.equal(reachViaOf({ kind: 'local', executor: hostNet }), 'loopback');
});
