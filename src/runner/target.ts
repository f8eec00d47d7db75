// Where candidates run: the simulated engine (a local executor with bin/sim first on PATH), the local host, or a host over ssh.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import { ContainerExecutor, LocalExecutor, openExecutor, parseTarget, processEnvSecrets, type Executor, type SecretSource } from '../exec';
import { simGpuFor } from '../sim/profiles';

export { simGpuFor };
import type { RunOptions } from './types';

/** Ports the frameworks listen on when a command names none. */
export const DEFAULT_PORTS: Record<FrameworkKey, number> = { sglang: 30000, vllm: 8000, tensorrt_llm: 8000, tokenspeed: 8000 };
export const DEFAULT_SIM_SPEED = 10;

/** Variables every launch of a framework gets (recorded in the manifest): vLLM serves /reset_prefix_cache only in dev mode. */
export const LAUNCH_ENV: Record<FrameworkKey, Record<string, string>> = { sglang: {}, vllm: { VLLM_SERVER_DEV_MODE: '1' }, tensorrt_llm: {}, tokenspeed: {} };
export const DEFAULT_SIM_SEED = 1;

export interface SimSettings {
  speed: number;
  seed: number;
  binDir: string;
  extra: string;
  /** The simulator's GPU profile matching the plan's hardware.gpu_model, when one does. */
  gpu: string | undefined;
}

export interface RunTarget {
  executor: Executor;
  kind: 'sim' | 'local' | 'ssh';
  simulated: boolean;
  sim: SimSettings | undefined;
  /** Host name for rows (`hardware.host`). */
  host: string;
  /** The port a candidate's server will listen on, and the variables its launch needs. */
  prepareLaunch(fw: FrameworkKey, flags: Record<string, unknown>): Promise<{ port: number; env: Record<string, string> }>;
  close(): Promise<void>;
}

/** bin/sim beside the code: dist/cli.js -> ../bin/sim; src/runner/*.ts -> ../../bin/sim. */
export function findSimBin(start = __dirname): string | undefined {
  let dir = resolve(start);
  for (let i = 0; i < 6; i++) {
    const cand = join(dir, 'bin', 'sim');
    if (existsSync(join(cand, '_run'))) return cand;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** A free loopback port (the kernel's choice, released right away; a clash later fails that launch loudly). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

function portFlag(flags: Record<string, unknown>): number | undefined {
  const p = flags.port;
  const n = typeof p === 'number' ? p : typeof p === 'string' ? Number(p) : NaN;
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

export async function openTarget(opts: RunOptions, secrets: SecretSource, gpuModel?: string): Promise<RunTarget> {
  const spec = parseTarget(opts.target);
  if (spec.kind === 'sim') {
    const binDir = opts.simBinDir ?? findSimBin();
    if (!binDir) throw new Error('target sim: bin/sim (the simulated framework CLIs) was not found beside autobench');
    const base = opts.baseEnv ?? process.env;
    const env: NodeJS.ProcessEnv = { ...base, PATH: `${binDir}${delimiter}${base.PATH ?? ''}` };
    // The shims run node; inside VS Code that is Electron, which must be told to behave as node.
    env.AUTOBENCH_NODE ??= process.execPath;
    if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
    const executor = new LocalExecutor({ secrets, baseEnv: env });
    let launches = 0;
    const sim: SimSettings = { speed: opts.simSpeed ?? DEFAULT_SIM_SPEED, seed: opts.simSeed ?? DEFAULT_SIM_SEED, binDir, extra: opts.simExtraOptions ?? '', gpu: simGpuFor(gpuModel) };
    return {
      executor,
      kind: 'sim',
      simulated: true,
      sim,
      host: 'sim (127.0.0.1)',
      async prepareLaunch(fw) {
        const port = await freePort();
        // Each launch its own salt: two starts of one command differ the way two real launches do, reproducibly.
        const salt = launches++;
        // The command stays byte-identical; the port and the simulator's settings travel in the environment.
        const opts = `--sim-speed ${sim.speed} --sim-seed ${sim.seed} --sim-launch-salt ${salt} --sim-port ${port}${sim.gpu ? ` --sim-gpu ${sim.gpu}` : ''}${sim.extra ? ` ${sim.extra}` : ''}`;
        return { port, env: { AUTOBENCH_SIM_OPTS: opts, ...LAUNCH_ENV[fw] } };
      },
      close: () => executor.close(),
    };
  }
  let executor: Executor;
  if (spec.kind === 'local') {
    // The caller's environment (PATH to the framework CLIs, CUDA_VISIBLE_DEVICES, ...) is the servers' environment.
    const local = new LocalExecutor({ secrets, baseEnv: opts.baseEnv ?? process.env });
    executor = opts.container ? new ContainerExecutor(local, opts.container) : local;
  } else {
    executor = await openExecutor(opts.target, {
      secrets,
      ssh: { ...opts.ssh, acceptNewHostKey: opts.hostKeyPrompt ?? opts.acceptNewHostKey ?? undefined },
      ...(opts.container ? { container: opts.container } : {}),
    });
  }
  return {
    executor,
    kind: spec.kind,
    simulated: false,
    sim: undefined,
    host: spec.kind === 'ssh' ? spec.host : 'localhost',
    prepareLaunch(fw, flags) {
      return Promise.resolve({ port: portFlag(flags) ?? DEFAULT_PORTS[fw], env: { ...LAUNCH_ENV[fw] } });
    },
    close: () => executor.close(),
  };
}

export const DEFAULT_SECRET_NAMES = ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'HUGGINGFACE_HUB_TOKEN', 'HF_API_TOKEN'];

export function secretSourceOf(opts: RunOptions): SecretSource {
  return opts.secrets ?? processEnvSecrets;
}
