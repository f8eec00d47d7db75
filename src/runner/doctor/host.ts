// Doctor's checks of the host servers would run on: its GPUs (ids, memory in use, CUDA_VISIBLE_DEVICES), and Node and the load client there.
import type { Executor } from '../../exec';
import { findClientBundle } from '../host-client';
import { MIN_NODE_MAJOR, noNodeReason, probeHost } from '../host-node';
import { gpuIdsOf, hostVisibleDevices } from '../gpu-ids';
import { checkGpus } from '../preflight';
import type { Interpreter } from './listener';
import { ok, problem, warn, type DoctorCheck } from './types';

/** nvidia-smi on the host, as the run's GPU preflight reads it. */
export async function gpuCheck(ex: Executor, gpus: readonly number[] | undefined, count: number): Promise<DoctorCheck> {
  // The same ids a run would launch on (runner/gpu-ids.ts).
  const visible = await hostVisibleDevices(ex);
  const requested = gpuIdsOf(gpus, visible, count);
  const g = await checkGpus(ex, requested);
  const seen = g.gpus.map((x) => `${x.index}: ${x.name}, ${x.memoryUsedMiB}/${x.memoryTotalMiB} MiB used`).join('; ');
  const detail = `CUDA_VISIBLE_DEVICES=${visible ?? '(unset)'}; wanted GPU ${requested.join(', ')}${seen ? `; nvidia-smi: ${seen}` : ''}; ${g.detail}`;
  if (g.status === 'free') return ok('gpus', detail);
  if (g.status === 'unavailable') return warn('gpus', detail, 'install the NVIDIA driver so that nvidia-smi is on the PATH of the host (the run then checks the GPUs are free before each launch)');
  if (g.status === 'missing') return problem('gpus', detail, `ask for GPUs the host has (--gpus with ids nvidia-smi lists, or hardware.gpu_count in the plan)`);
  return problem('gpus', detail, 'stop the processes on those GPUs (nvidia-smi names them), or choose free ones with --gpus');
}

/** Node >= 20 and the load client on a remote host, and a program there that can run the reachability probe. */
export async function clientChecks(
  host: Executor,
  local: boolean,
): Promise<{
  checks: DoctorCheck[];
  interpreter: Interpreter | undefined;
  clientOnHost: boolean;
}> {
  if (local)
    return {
      checks: [ok('client', `the load client runs in this process (Node ${process.version}), next to the server`)],
      interpreter: { kind: 'node', path: process.execPath },
      clientOnHost: false,
    };
  let facts;
  try {
    facts = await probeHost(host);
  } catch (e) {
    return {
      checks: [problem('node', (e as Error).message, 'make the host give a shell with a writable home or /tmp')],
      interpreter: undefined,
      clientOnHost: false,
    };
  }
  const checks: DoctorCheck[] = [];
  const fix = `install Node >= ${MIN_NODE_MAJOR} on the host (or set AUTOBENCH_NODE to one there), or set AUTOBENCH_BRING_NODE=1 to bring one from the npm registry`;
  if (facts.node) checks.push(ok('node', `${facts.node.path} ${facts.node.version}`));
  else checks.push(warn('node', `${noNodeReason(facts)}; the load client would run here, through the port forward (its overhead is measured into every row)`, fix));
  const bundle = findClientBundle();
  const clientOnHost = Boolean(facts.node && bundle);
  if (!bundle) checks.push(warn('client', 'the client bundle dist/client-node.js was not found beside autobench; the client would run here, through the port forward', 'build it: node scripts/build.mjs'));
  else if (facts.node) checks.push(ok('client', `runs on the host with ${facts.node.path} (copied to ${facts.cacheDir})`));
  const any = facts.node ?? facts.found[0];
  if (any)
    return {
      checks,
      interpreter: { kind: 'node', path: any.path },
      clientOnHost,
    };
  const py = await host.run(['sh', '-c', 'command -v python3'], { timeoutMs: 30_000 }).catch(() => undefined);
  const path = py?.code === 0 ? py.stdout.trim() : '';
  return {
    checks,
    interpreter: path ? { kind: 'python', path } : undefined,
    clientOnHost,
  };
}
