// Where candidates run: the simulated engine (a local executor with bin/sim first on PATH), the local host, a host over ssh, or a job per candidate on a Slurm cluster (slurm-target.ts).
import type { PlanSlurm } from '../core/plan/slurm';
import { ContainerExecutor, LocalExecutor, openExecutor, parseTarget, processEnvSecrets, type Executor, type SecretSource } from '../exec';
import { simGpuFor } from '../sim/profiles';
import { freePort, portFlag, simLaunchEnv, simSettingsOf, simShimEnv, DEFAULT_PORTS, LAUNCH_ENV } from './launch-env';
import { gpuLaunchEnv } from './gpu-ids';
import { openSlurmTarget } from './slurm-target';
import type { RunTarget } from './target-types';
import type { RunOptions } from './types';

export { simGpuFor };
export { DEFAULT_PORTS, DEFAULT_SIM_SEED, DEFAULT_SIM_SPEED, LAUNCH_ENV, findSimBin, freePort } from './launch-env';
export type { PlaceRefused, PlaceRequest, Placement, RunTarget, SimSettings, SlurmJobRecord } from './target-types';

export async function openTarget(opts: RunOptions, secrets: SecretSource, gpuModel?: string, slurm?: PlanSlurm): Promise<RunTarget> {
  const spec = parseTarget(opts.target);
  if (spec.kind === 'sim') {
    const { binDir, env } = simShimEnv(opts);
    const executor = new LocalExecutor({ secrets, baseEnv: env });
    const sim = simSettingsOf(opts, binDir, gpuModel);
    const launchEnv = simLaunchEnv(sim);
    return {
      executor,
      kind: 'sim',
      simulated: true,
      sim,
      host: 'sim (127.0.0.1)',
      maxParallel: 1,
      async prepareLaunch(fw) {
        const port = await freePort();
        return { port, env: launchEnv(fw, port) };
      },
      close: () => executor.close(),
    };
  }
  if (spec.kind === 'slurm') return openSlurmTarget(opts, secrets, gpuModel, spec.partition, slurm);
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
  const target: RunTarget = {
    executor,
    kind: spec.kind,
    simulated: false,
    sim: undefined,
    host: spec.kind === 'ssh' ? spec.host : 'localhost',
    maxParallel: 1,
    prepareLaunch(fw, flags) {
      return Promise.resolve({ port: portFlag(flags) ?? DEFAULT_PORTS[fw], env: { ...LAUNCH_ENV[fw], ...gpuLaunchEnv(target.gpus ?? []) } });
    },
    close: () => executor.close(),
  };
  return target;
}

export const DEFAULT_SECRET_NAMES = ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'HUGGINGFACE_HUB_TOKEN', 'HF_API_TOKEN'];

export function secretSourceOf(opts: RunOptions): SecretSource {
  return opts.secrets ?? processEnvSecrets;
}
