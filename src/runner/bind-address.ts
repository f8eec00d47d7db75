// Where a server listens: the address each engine binds given its flags (SGLang and trtllm-serve default to loopback),
// and the `--host 0.0.0.0` a launch adds when the runner reaches the server from another host (a Slurm node at its NodeAddr).
import { frameworkSpec } from '../core/frameworks';
import { isLoopbackHost } from '../core/loopback';
import type { FrameworkKey } from '../core/frameworks/types';
import { ContainerExecutor } from '../exec';
import type { RunTarget } from './target-types';

/** How the runner (health wait, smoke, a login-host client) reaches the server: on its own host's loopback, or over a network. */
export type ReachVia = 'loopback' | 'network';

/** Every IPv4 interface: what the launch asks for when the engine's default would be loopback. */
export const ALL_INTERFACES = '0.0.0.0';

/** The host the candidate itself sets: its `host` flag, else a `--host X` / `--host=X` word of its argv (a raw extra argument). */
export function hostFlagOf(flags: Record<string, unknown>, argv: readonly string[] = []): string | undefined {
  const v = flags.host;
  if (typeof v === 'string' && v !== '') return v;
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i] as string;
    if (w === '--host' && i + 1 < argv.length) return argv[i + 1];
    if (w.startsWith('--host=')) return w.slice('--host='.length);
  }
  return undefined;
}

/** The address the engine binds given its flags: the candidate's host, else the framework's default (SGLang 127.0.0.1, trtllm-serve localhost). */
export function bindHostOf(fw: FrameworkKey, flags: Record<string, unknown>, argv: readonly string[] = []): string {
  return hostFlagOf(flags, argv) ?? frameworkSpec(fw).defaultHost;
}

/**
 * The argv to launch: the candidate's, plus `--host 0.0.0.0` when the runner reaches the server over a network and
 * the engine would bind loopback because the candidate sets no host (`added`: those words, to record). A candidate
 * that sets a loopback host itself keeps it (`unreachable` says why its health wait will time out).
 */
export function withReachableHost(fw: FrameworkKey, argv: readonly string[], flags: Record<string, unknown>, reachVia: ReachVia): { argv: string[]; added: string[]; unreachable?: string } {
  if (reachVia === 'loopback') return { argv: [...argv], added: [] };
  const own = hostFlagOf(flags, argv);
  if (own !== undefined) {
    if (!isLoopbackHost(own)) return { argv: [...argv], added: [] };
    return { argv: [...argv], added: [], unreachable: `the candidate sets --host ${own}: the server answers only on its own node, and the runner reaches it over the network (drop --host or set --host ${ALL_INTERFACES})` };
  }
  if (!isLoopbackHost(frameworkSpec(fw).defaultHost)) return { argv: [...argv], added: [] };
  const added = ['--host', ALL_INTERFACES];
  return { argv: [...argv, ...added], added };
}

/** How a target's runner reaches its servers: over the network on Slurm (the node's NodeAddr) and in a container whose ports are published; else loopback. */
export function reachViaOf(target: Pick<RunTarget, 'kind' | 'executor'>): ReachVia {
  if (target.kind === 'slurm') return 'network';
  const ex = target.executor;
  if (ex instanceof ContainerExecutor && ex.opts.mode.kind === 'run' && typeof ex.opts.mode.network === 'object') return 'network';
  return 'loopback';
}
