// docker/podman argv builders: the exact argv and the exact shell line a user would paste, secrets by name only.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { shlexJoin, shlexSplit } from '../../src/core/candidates/shell';
import { skipWhenMissing } from '../support/requirements';
import {
  buildContainerInspectArgv,
  buildExecArgv,
  buildImageInspectArgv,
  buildRemoveArgv,
  buildRunArgv,
  buildStopArgv,
  containerName,
  gpuArgs,
  parseContainerInspect,
  parseImageInspect,
} from '../../src/exec/container';

describe('buildRunArgv', () => {
  test('the runbook line: GPUs quoted for docker, ipc host, shm, HF cache, -e HF_TOKEN by name, host network', () => {
    const argv = buildRunArgv({
      engine: 'docker',
      image: 'lmsysorg/sglang:v0.5.21',
      name: 'autobench-r1-sglang-c3',
      gpus: [6, 7],
      shmSize: '32g',
      hfCache: { hostPath: '/data/hf' },
      env: { SGLANG_LOG_LEVEL: 'info' },
      secretEnv: ['HF_TOKEN'],
      command: ['python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', '30000'],
    });
    assert.deepEqual(argv, [
      'docker', 'run', '--rm', '--name', 'autobench-r1-sglang-c3',
      '--gpus', '"device=6,7"',
      '--ipc=host', '--shm-size', '32g',
      '--network', 'host',
      '-v', '/data/hf:/root/.cache/huggingface',
      '-e', 'SGLANG_LOG_LEVEL=info',
      '-e', 'HF_TOKEN',
      'lmsysorg/sglang:v0.5.21',
      'python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', '30000',
    ]);
    const line = shlexJoin(argv);
    assert.ok(line.includes(`--gpus '"device=6,7"'`), line);
    assert.ok(line.includes(' -e HF_TOKEN '), 'the secret goes by name, with no = and no value');
    assert.deepEqual(shlexSplit(line), argv, 'the printed line runs the same argv');
  });

  test('published ports bind loopback by default; read-only volumes; workdir, user, entrypoint, extra args, no --rm, detached', () => {
    const argv = buildRunArgv({
      engine: 'docker',
      image: 'vllm/vllm-openai@sha256:' + 'a'.repeat(64),
      name: 'x1',
      ipcHost: false,
      network: { publish: [{ containerPort: 8000 }, { containerPort: 8001, hostPort: 18001, hostIp: '::1' }] },
      volumes: [{ hostPath: '/models', containerPath: '/models', readOnly: true }],
      workdir: '/work',
      user: '1000:1000',
      entrypoint: '',
      extraArgs: ['--ulimit', 'memlock=-1'],
      rm: false,
      detach: true,
      init: true,
      command: ['--model', '/models/m'],
    });
    assert.deepEqual(argv, [
      'docker', 'run', '-d', '--name', 'x1', '--init',
      '-p', '127.0.0.1:8000:8000', '-p', '[::1]:18001:8001',
      '-v', '/models:/models:ro',
      '-w', '/work', '--user', '1000:1000', '--entrypoint', '',
      '--ulimit', 'memlock=-1',
      'vllm/vllm-openai@sha256:' + 'a'.repeat(64),
      '--model', '/models/m',
    ]);
  });

  test('podman gets CDI devices; "all" for both engines', () => {
    assert.deepEqual(gpuArgs('podman', [0, 3]), ['--device', 'nvidia.com/gpu=0', '--device', 'nvidia.com/gpu=3']);
    assert.deepEqual(gpuArgs('podman', 'all'), ['--device', 'nvidia.com/gpu=all']);
    assert.deepEqual(gpuArgs('docker', 'all'), ['--gpus', 'all']);
    assert.deepEqual(gpuArgs('docker', ['GPU-8f6c2f1e-1c2d-4e5f-9a0b-112233445566']), ['--gpus', '"device=GPU-8f6c2f1e-1c2d-4e5f-9a0b-112233445566"']);
    assert.deepEqual(gpuArgs('docker', [5]), ['--gpus', '"device=5"']);
    assert.deepEqual(gpuArgs('docker', []), []);
    assert.throws(() => gpuArgs('docker', ['6"; rm -rf /']), /invalid GPU id/);
  });

  test('a secret-looking plain env value is refused; bad names are refused', () => {
    const base = { engine: 'docker' as const, image: 'img', name: 'n', command: [] };
    assert.throws(() => buildRunArgv({ ...base, env: { HF_TOKEN: 'hf_' + 'a'.repeat(30) } }), /pass it by name/);
    assert.throws(() => buildRunArgv({ ...base, env: { NOTE: 'sk-' + 'b'.repeat(30) } }), /looks like a secret/);
    assert.throws(() => buildRunArgv({ ...base, secretEnv: ['HF TOKEN'] }), /not a valid environment variable name/);
    assert.throws(() => buildRunArgv({ ...base, name: '-rf' }), /invalid container name/);
    assert.throws(() => buildRunArgv({ ...base, image: '--privileged' }), /invalid image/);
  });

  test('engineBinary replaces the CLI name only', () => {
    const argv = buildRunArgv({ engine: 'podman', engineBinary: '/usr/bin/podman', image: 'i', name: 'n', command: ['c'], gpus: [1] });
    assert.deepEqual(argv.slice(0, 2), ['/usr/bin/podman', 'run']);
    assert.ok(argv.includes('nvidia.com/gpu=1'));
  });
});

describe('exec, stop, rm, inspect', () => {
  test('exec into a running container with env, secrets by name, workdir', () => {
    assert.deepEqual(
      buildExecArgv({ engine: 'docker', container: 'sglang-dev', argv: ['sglang', 'serve', '--help'], env: { A: '1' }, secretEnv: ['HF_TOKEN'], workdir: '/sgl', interactive: true }),
      ['docker', 'exec', '-i', '-e', 'A=1', '-e', 'HF_TOKEN', '-w', '/sgl', 'sglang-dev', 'sglang', 'serve', '--help'],
    );
  });

  test('teardown argv', () => {
    assert.deepEqual(buildStopArgv('docker', 'c1', 10_000), ['docker', 'stop', '-t', '10', 'c1']);
    assert.deepEqual(buildStopArgv('podman', 'c1', 1500), ['podman', 'stop', '-t', '2', 'c1']);
    assert.deepEqual(buildRemoveArgv('podman', 'c1'), ['podman', 'rm', '-f', 'c1']);
  });

  test('image tag and digest lookup', () => {
    const argv = buildImageInspectArgv('docker', 'lmsysorg/sglang:latest');
    assert.deepEqual(argv, ['docker', 'image', 'inspect', '--format', '{{.Id}}|{{join .RepoTags ","}}|{{join .RepoDigests ","}}', 'lmsysorg/sglang:latest']);
    assert.equal(shlexJoin(argv), `docker image inspect --format '{{.Id}}|{{join .RepoTags ","}}|{{join .RepoDigests ","}}' lmsysorg/sglang:latest`);
    const info = parseImageInspect('sha256:1111|lmsysorg/sglang:latest,lmsysorg/sglang:v0.5.21|lmsysorg/sglang@sha256:2222\n');
    assert.deepEqual(info, {
      id: 'sha256:1111',
      tags: ['lmsysorg/sglang:latest', 'lmsysorg/sglang:v0.5.21'],
      digests: ['lmsysorg/sglang@sha256:2222'],
    });
    assert.deepEqual(parseImageInspect('sha256:3333||\n'), { id: 'sha256:3333', tags: [], digests: [] });
    assert.throws(() => parseImageInspect('\n'), /empty/);
    assert.deepEqual(buildContainerInspectArgv('docker', 'c1').slice(0, 4), ['docker', 'container', 'inspect', '--format']);
    assert.deepEqual(parseContainerInspect('vllm/vllm-openai:v0.11|sha256:abc|true\n'), { image: 'vllm/vllm-openai:v0.11', imageId: 'sha256:abc', running: true });
  });

  test('containerName makes engine-safe names', () => {
    assert.equal(containerName('autobench', 'run 2026/05/01', 'sglang c#3'), 'autobench-run-2026-05-01-sglang-c-3');
    assert.equal(containerName('--x'), 'x');
    assert.equal(containerName(''), 'autobench');
    assert.ok(containerName('a'.repeat(100)).length <= 63);
  });
});

describe('the real docker CLI (flag parsing only)', () => {
  const probe = spawnSync('docker', ['--version'], { encoding: 'utf8' });
  const skip = skipWhenMissing(probe.error ? 'docker CLI not installed (apt-get install -y docker.io)' : undefined);

  test('accepts the built argv; a broken --gpus quote is what it rejects', { skip }, () => {
    // DOCKER_HOST at a socket that cannot exist: the CLI parses every flag, then fails to connect,
    // so nothing is pulled or run even where a daemon is installed.
    const env = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/autobench-docker.sock' };
    const argv = buildRunArgv({
      engine: 'docker',
      image: 'autobench/none:tag',
      name: 'autobench-cli-check',
      gpus: [6, 7],
      shmSize: '16g',
      hfCache: { hostPath: '/tmp/hf' },
      secretEnv: ['HF_TOKEN'],
      network: { publish: [{ containerPort: 8000 }] },
      command: ['true'],
    });
    const ok = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', env, timeout: 20_000 });
    assert.match(ok.stderr, /Cannot connect to the Docker daemon|nonexistent/);
    assert.doesNotMatch(ok.stderr, /invalid argument|unknown flag/);
    const bad = spawnSync('docker', ['run', '--gpus', '"device=6,7', 'autobench/none:tag'], { encoding: 'utf8', env, timeout: 20_000 });
    assert.match(bad.stderr, /invalid argument .* for "--gpus" flag/);
  });
});
