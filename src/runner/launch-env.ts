// What a launch needs besides its command: the frameworks' default ports and variables, a free port, and the simulator's shims, settings and per-launch variables.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { FrameworkKey } from '../core/frameworks/types';
import { simGpuFor } from '../sim/profiles';
import type { SimSettings } from './target-types';
import type { RunOptions } from './types';

/** Ports the frameworks listen on when a command names none. */
export const DEFAULT_PORTS: Record<FrameworkKey, number> = { sglang: 30000, vllm: 8000, tensorrt_llm: 8000, tokenspeed: 8000 };
export const DEFAULT_SIM_SPEED = 10;

/** Variables every launch of a framework gets (recorded in the manifest): vLLM serves /reset_prefix_cache only in dev mode. */
export const LAUNCH_ENV: Record<FrameworkKey, Record<string, string>> = { sglang: {}, vllm: { VLLM_SERVER_DEV_MODE: '1' }, tensorrt_llm: {}, tokenspeed: {} };
export const DEFAULT_SIM_SEED = 1;

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

export function portFlag(flags: Record<string, unknown>): number | undefined {
  const p = flags.port;
  const n = typeof p === 'number' ? p : typeof p === 'string' ? Number(p) : NaN;
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

/** The environment the simulator's framework CLIs run in: bin/sim first on PATH, and the node that runs them. */
export function simShimEnv(opts: RunOptions): { binDir: string; env: NodeJS.ProcessEnv } {
  const binDir = opts.simBinDir ?? findSimBin();
  if (!binDir) throw new Error(`target ${opts.target}: bin/sim (the simulated framework CLIs) was not found beside autobench`);
  const base = opts.baseEnv ?? process.env;
  const env: NodeJS.ProcessEnv = { ...base, PATH: `${binDir}${delimiter}${base.PATH ?? ''}` };
  // The shims run node; inside VS Code that is Electron, which must be told to behave as node.
  env.AUTOBENCH_NODE ??= process.execPath;
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return { binDir, env };
}

export function simSettingsOf(opts: RunOptions, binDir: string, gpuModel: string | undefined): SimSettings {
  return { speed: opts.simSpeed ?? DEFAULT_SIM_SPEED, seed: opts.simSeed ?? DEFAULT_SIM_SEED, binDir, extra: opts.simExtraOptions ?? '', gpu: simGpuFor(gpuModel) };
}

/** A simulated launch's variables: the command stays byte-identical; the port and the simulator's settings travel in the environment. */
export function simLaunchEnv(sim: SimSettings): (fw: FrameworkKey, port: number) => Record<string, string> {
  let launches = 0;
  return (fw, port) => {
    // Each launch its own salt: two starts of one command differ the way two real launches do, reproducibly.
    const salt = launches++;
    const opts = `--sim-speed ${sim.speed} --sim-seed ${sim.seed} --sim-launch-salt ${salt} --sim-port ${port}${sim.gpu ? ` --sim-gpu ${sim.gpu}` : ''}${sim.extra ? ` ${sim.extra}` : ''}`;
    return { AUTOBENCH_SIM_OPTS: opts, ...LAUNCH_ENV[fw] };
  };
}
