// Doctor's checks of where a framework's server would listen: the port free on the host, the address it binds, and whether the readiness check and the load client reach it there.
import type { FrameworkKey } from '../../core/frameworks/types';
import { isLoopbackHost } from '../../core/loopback';
import { bindHostOf, hostFlagOf, reachViaOf, withReachableHost } from '../bind-address';
import type { RunTarget } from '../target-types';
import { connectHere, connectOnHost, listenOn, type Interpreter } from './listener';
import { ok, problem, warn, type DoctorCheck } from './types';

/** Where the readiness check (and a client here) reaches the server, in words. */
function reachedFrom(t: RunTarget): string {
  if (t.kind === 'slurm') return "the login host, at the node's address (NodeAddr)";
  if (t.kind === 'ssh') return "here through the ssh port forward, which ends on the host's 127.0.0.1";
  return 'this process, at 127.0.0.1';
}

function portInUse(fw: FrameworkKey, port: number, host: string): DoctorCheck {
  return problem('port', `port ${port} on ${host} is in use`, `stop what listens there (\`ss -ltnp 'sport = :${port}'\` on the host names it), or give the candidates a free port: port: N in frameworks.${fw}.base_server_flags`);
}

function bindFix(fw: FrameworkKey): string {
  return `let the server listen where it is reached: host: 0.0.0.0 in frameworks.${fw}.base_server_flags (or remove a --host that names another address)`;
}

/** Port, bind address and reachability of one framework's server on `t` (a Slurm job's target on slurm), with a throwaway listener. */
export async function serverChecks(t: RunTarget, fw: FrameworkKey, flags: Record<string, unknown>, argv: readonly string[], interp: Interpreter | undefined, clientOnHost: boolean): Promise<DoctorCheck[]> {
  const { port } = await t.prepareLaunch(fw, flags);
  // The address the launch will bind: the runner's own --host 0.0.0.0 included where it reaches the server over a network.
  const launch = withReachableHost(fw, argv, flags, reachViaOf(t));
  const bind = bindHostOf(fw, flags, launch.argv);
  const shown = bind || 'every interface';
  const why = launch.added.length ? `the runner adds ${launch.added.join(' ')}: ${fw} alone would bind ${bindHostOf(fw, flags, argv)}` : hostFlagOf(flags, argv) !== undefined ? "the candidate's --host" : 'its default';
  const bindDetail = `${fw} binds ${shown} (${why}); reached from ${reachedFrom(t)}`;
  if (!interp) return [warn('port', `port ${port}: not probed (the host has neither node nor python3)`, 'install python3 or Node on the host'), warn('bind', bindDetail, 'install python3 or Node on the host so doctor can probe it')];
  const listen = await listenOn(t.executor, interp, bind, port);
  if (!listen.ok) {
    if (listen.code === 'EADDRINUSE') return [portInUse(fw, port, t.host), ok('bind', bindDetail)];
    if (listen.code === 'EADDRNOTAVAIL') return [ok('port', `port ${port}`), problem('bind', `${bindDetail}: ${bind} is not an address of ${t.host}`, bindFix(fw))];
    return [problem('port', `port ${port} on ${t.host}: ${listen.code}`, "choose a port above 1024 that nothing listens on (port: N in the plan's base_server_flags)")];
  }
  try {
    const here = await connectHere(t.executor, port);
    const onHost = clientOnHost ? await connectOnHost(t.executor, interp, '127.0.0.1', port) : undefined;
    const out = [ok('port', `port ${port} free on ${t.host}${t.simulated ? ' (the simulator picks a free one per launch)' : ''}`), ok('bind', bindDetail)];
    const parts = [`from ${reachedFrom(t)} (${here.via}): ${here.result}`, ...(onHost ? [`from the host's 127.0.0.1 (the load client there): ${onHost}`] : [])];
    const unreachable = here.result !== 'reached' || (onHost !== undefined && onHost !== 'reached');
    if (!unreachable) out.push(ok('reach', parts.join('; ')));
    else {
      const note = launch.unreachable ? `; ${launch.unreachable}` : isLoopbackHost(bind) && t.kind === 'slurm' ? `; a server bound to ${bind} answers only on its node` : '';
      out.push(problem('reach', `${parts.join('; ')}${note}`, bindFix(fw)));
    }
    return out;
  } finally {
    await listen.stop();
  }
}
