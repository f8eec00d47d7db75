// docker/podman argv as the playbook's container runbook runs them: run, exec, stop/rm, image and container inspect; pure, no engine needed.
//
// Choices: GPUs for docker as `--gpus '"device=6,7"'` — the value carries its own double quotes so
// docker's CSV parser keeps `6,7` as one device list (the argv element is `"device=6,7"`; a shell
// line needs the outer single quotes); for podman as CDI devices `--device nvidia.com/gpu=6`.
// Secrets only as `-e NAME` (the engine CLI copies the value from its own environment); a plain
// env value that looks like a token is refused. Published ports bind 127.0.0.1 unless told.
import { looksSecret } from '../core/secrets';
import { checkEnvName } from './types';

export type ContainerEngine = 'docker' | 'podman';

export interface PublishedPort {
  containerPort: number;
  hostPort?: number;
  /** Default 127.0.0.1: a benchmark server is not for the network. */
  hostIp?: string;
}

export interface VolumeMount {
  hostPath: string;
  containerPath: string;
  readOnly?: boolean;
}

export interface ContainerRunSpec {
  engine: ContainerEngine;
  /** The CLI to call; default the engine name. */
  engineBinary?: string;
  image: string;
  /** For teardown (`rm -f NAME`); see containerName(). */
  name: string;
  /** Device ids, or 'all'. */
  gpus?: 'all' | readonly (number | string)[];
  /** --ipc=host, default true (NCCL and PyTorch shared memory). */
  ipcHost?: boolean;
  /** --shm-size, e.g. '32g'. */
  shmSize?: string;
  /** The Hugging Face cache on the host, mounted at containerPath (default /root/.cache/huggingface). */
  hfCache?: { hostPath: string; containerPath?: string };
  volumes?: readonly VolumeMount[];
  env?: Readonly<Record<string, string>>;
  /** Names passed as `-e NAME`: values come from the engine CLI's environment. */
  secretEnv?: readonly string[];
  /** 'host' (default) or published ports. */
  network?: 'host' | { publish: readonly PublishedPort[] };
  workdir?: string;
  entrypoint?: string;
  user?: string;
  /** --rm, default true. */
  rm?: boolean;
  /** -d, default false: the CLI stays in the foreground streaming the server's output. */
  detach?: boolean;
  /** --init: a tiny init as PID 1 that forwards signals and reaps zombies. Default false. */
  init?: boolean;
  /** Appended before the image, as given. */
  extraArgs?: readonly string[];
  /** The server command inside the container (after the image). */
  command: readonly string[];
}

export const DEFAULT_HF_CACHE_IN_CONTAINER = '/root/.cache/huggingface';

const NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** A container name from free-form parts (run id, candidate): engine-safe, at most 63 characters. */
export function containerName(...parts: readonly string[]): string {
  const joined = parts
    .join('-')
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[^a-zA-Z0-9]+/, '')
    .replace(/-+/g, '-');
  const name = (joined || 'autobench').slice(0, 63).replace(/[-.]+$/, '');
  return name || 'autobench';
}

function checkName(name: string): string {
  if (!NAME_RE.test(name)) throw new Error(`invalid container name: ${JSON.stringify(name)}`);
  return name;
}

function envArgs(env: Readonly<Record<string, string>> | undefined, secretEnv: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env ?? {})) {
    checkEnvName(k);
    if (looksSecret(`${k}=${v}`) || looksSecret(v)) {
      throw new Error(`env ${k} looks like a secret; pass it by name (secretEnv) so it becomes -e ${k}`);
    }
    out.push('-e', `${k}=${v}`);
  }
  for (const k of secretEnv ?? []) out.push('-e', checkEnvName(k));
  return out;
}

/** The argv element(s) for GPU selection. */
export function gpuArgs(engine: ContainerEngine, gpus: ContainerRunSpec['gpus']): string[] {
  if (gpus === undefined) return [];
  if (gpus !== 'all') {
    if (gpus.length === 0) return [];
    for (const g of gpus) {
      if (!/^(\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$/.test(String(g))) throw new Error(`invalid GPU id: ${String(g)}`);
    }
  }
  if (engine === 'podman') {
    const ids = gpus === 'all' ? ['all'] : gpus.map(String);
    return ids.flatMap((id) => ['--device', `nvidia.com/gpu=${id}`]);
  }
  return ['--gpus', gpus === 'all' ? 'all' : `"device=${gpus.map(String).join(',')}"`];
}

function portArg(p: PublishedPort): string {
  const ip = p.hostIp ?? '127.0.0.1';
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return `${host}:${p.hostPort ?? p.containerPort}:${p.containerPort}`;
}

export function buildRunArgv(spec: ContainerRunSpec): string[] {
  const argv = [spec.engineBinary ?? spec.engine, 'run'];
  if (spec.rm ?? true) argv.push('--rm');
  if (spec.detach) argv.push('-d');
  argv.push('--name', checkName(spec.name));
  if (spec.init) argv.push('--init');
  argv.push(...gpuArgs(spec.engine, spec.gpus));
  if (spec.ipcHost ?? true) argv.push('--ipc=host');
  // Both together is what SGLang's own docker line does; docker accepts it.
  if (spec.shmSize) argv.push('--shm-size', spec.shmSize);
  const network = spec.network ?? 'host';
  if (network === 'host') argv.push('--network', 'host');
  else for (const p of network.publish) argv.push('-p', portArg(p));
  if (spec.hfCache) {
    argv.push('-v', `${spec.hfCache.hostPath}:${spec.hfCache.containerPath ?? DEFAULT_HF_CACHE_IN_CONTAINER}`);
  }
  for (const v of spec.volumes ?? []) argv.push('-v', `${v.hostPath}:${v.containerPath}${v.readOnly ? ':ro' : ''}`);
  argv.push(...envArgs(spec.env, spec.secretEnv));
  if (spec.workdir) argv.push('-w', spec.workdir);
  if (spec.user) argv.push('--user', spec.user);
  if (spec.entrypoint !== undefined) argv.push('--entrypoint', spec.entrypoint);
  argv.push(...(spec.extraArgs ?? []));
  if (!spec.image || spec.image.startsWith('-')) throw new Error(`invalid image: ${JSON.stringify(spec.image)}`);
  argv.push(spec.image, ...spec.command);
  return argv;
}

export interface ContainerExecSpec {
  engine: ContainerEngine;
  engineBinary?: string;
  container: string;
  argv: readonly string[];
  env?: Readonly<Record<string, string>>;
  secretEnv?: readonly string[];
  workdir?: string;
  /** -i: keep stdin open (for secrets read inside the container). */
  interactive?: boolean;
}

export function buildExecArgv(spec: ContainerExecSpec): string[] {
  const argv = [spec.engineBinary ?? spec.engine, 'exec'];
  if (spec.interactive) argv.push('-i');
  argv.push(...envArgs(spec.env, spec.secretEnv));
  if (spec.workdir) argv.push('-w', spec.workdir);
  argv.push(checkName(spec.container), ...spec.argv);
  return argv;
}

/** `stop -t SECONDS NAME`: TERM to the container's PID 1, KILL after the grace. */
export function buildStopArgv(engine: ContainerEngine, name: string, graceMs: number, engineBinary?: string): string[] {
  return [engineBinary ?? engine, 'stop', '-t', String(Math.max(0, Math.ceil(graceMs / 1000))), checkName(name)];
}

export function buildRemoveArgv(engine: ContainerEngine, name: string, engineBinary?: string): string[] {
  return [engineBinary ?? engine, 'rm', '-f', checkName(name)];
}

export function buildPullArgv(engine: ContainerEngine, image: string, engineBinary?: string): string[] {
  return [engineBinary ?? engine, 'pull', image];
}

// Fields separated by '|', which neither ids, tags nor digests contain.
const IMAGE_FORMAT = '{{.Id}}|{{join .RepoTags ","}}|{{join .RepoDigests ","}}';

export function buildImageInspectArgv(engine: ContainerEngine, image: string, engineBinary?: string): string[] {
  return [engineBinary ?? engine, 'image', 'inspect', '--format', IMAGE_FORMAT, image];
}

export interface ImageInfo {
  /** The image id (sha256:...). */
  id: string;
  tags: string[];
  /** repo@sha256:... — what to record so the run can be repeated on the same bits. */
  digests: string[];
}

export function parseImageInspect(stdout: string): ImageInfo {
  const line = stdout.split('\n').find((l) => l.trim() !== '');
  if (!line) throw new Error('empty image inspect output');
  const [id = '', tags = '', digests = ''] = line.trim().split('|');
  const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter((x) => x !== '' && x !== '<none>');
  return { id, tags: list(tags), digests: list(digests) };
}

/** Image reference and id of a running container (exec mode), then image inspect for digests. */
export function buildContainerInspectArgv(engine: ContainerEngine, name: string, engineBinary?: string): string[] {
  return [engineBinary ?? engine, 'container', 'inspect', '--format', '{{.Config.Image}}|{{.Image}}|{{.State.Running}}', checkName(name)];
}

export function parseContainerInspect(stdout: string): { image: string; imageId: string; running: boolean } {
  const [image = '', imageId = '', running = ''] = stdout.trim().split('|');
  return { image, imageId, running: running.trim() === 'true' };
}
