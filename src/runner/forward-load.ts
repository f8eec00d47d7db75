// What the ssh port forward adds under a trial's own load, when the client could not run on the host: GET /v1/models timed through the forward from here and on the host itself, side by side, for as long as the trial runs.
//
// The launch-time figure (server.ts measureTransport) is an idle request; under hundreds of streams the
// forward's decryption and channel piping share this process's event loop with the client, which is what
// this measures. The host side is timed by node when the host has one, else by curl, else not at all.
import { Agent, request } from 'node:http';
import type { Executor, ServerProcess } from '../exec';

export interface ForwardLoad {
  /** Probes made through the forward during the trial. */
  samples: number;
  /** GET /v1/models through the forward during the trial (ms). */
  rtt_p50_ms: number | null;
  rtt_p99_ms: number | null;
  /** The same request made on the host itself meanwhile (null when the host had neither node nor curl). */
  host_rtt_p50_ms: number | null;
  host_rtt_p99_ms: number | null;
  host_probe: 'node' | 'curl' | null;
  /** What the forward added: through it minus on the host. */
  overhead_p50_ms: number | null;
  overhead_p99_ms: number | null;
}

const PROBE_MS = 250;

// On the host: one keep-alive GET every PROBE_MS, printing each round trip in ms, until killed.
const NODE_PROBE = `const http=require('http');const port=+process.argv[1],ms=+process.argv[2];const a=new http.Agent({keepAlive:true,maxSockets:1});
const one=()=>{const s=process.hrtime.bigint();http.get({host:'127.0.0.1',port,path:'/v1/models',agent:a},r=>{r.resume();r.on('end',()=>{console.log(Number(process.hrtime.bigint()-s)/1e6);setTimeout(one,ms);});}).on('error',()=>setTimeout(one,ms));};one();`;

function hostScript(port: number): string {
  const url = `http://127.0.0.1:${port}/v1/models`;
  return [
    'if command -v node >/dev/null 2>&1; then echo probe=node; exec node -e "$1" "$2" "$3"; fi',
    `if command -v curl >/dev/null 2>&1; then echo probe=curl; while :; do curl -s -o /dev/null -w '%{time_total}\\n' '${url}' || sleep 0.2; sleep ${PROBE_MS / 1000}; done; fi`,
    'echo probe=none',
  ].join('\n');
}

function quantile(xs: number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? null;
}

const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
const diff = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : round(a - b));

/** Local probes through the forward, one at a time on their own keep-alive connection. */
function localProbe(host: string, port: number): { stop: () => number[] } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const one = (): void => {
    const t0 = performance.now();
    const req = request({ host, port, path: '/v1/models', agent }, (res) => {
      res.resume();
      res.on('end', () => {
        out.push(performance.now() - t0);
        if (!stopped) timer = setTimeout(one, PROBE_MS);
      });
    });
    req.on('error', () => {
      if (!stopped) timer = setTimeout(one, PROBE_MS);
    });
    req.end();
  };
  one();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      agent.destroy();
      return out;
    },
  };
}

/** Starts probing through the forward (localPort here) and on the host (remotePort there); stop() ends both and sums up. */
export async function probeForwardUnderLoad(ex: Executor, forward: { localHost: string; localPort: number }, remotePort: number): Promise<{ stop: () => Promise<ForwardLoad> }> {
  const hostSamples: number[] = [];
  let kind: ForwardLoad['host_probe'] = null;
  let unit = 1;
  let proc: ServerProcess | undefined;
  try {
    proc = await ex.start({
      argv: ['sh', '-c', hostScript(remotePort), 'autobench-probe', NODE_PROBE, String(remotePort), String(PROBE_MS)],
      tailLines: 5,
      onLine: (l) => {
        if (l === 'probe=node' || l === 'probe=curl') {
          kind = l === 'probe=node' ? 'node' : 'curl';
          unit = kind === 'curl' ? 1000 : 1; // curl prints seconds
        } else if (/^\d+(\.\d+)?$/.test(l)) hostSamples.push(Number(l) * unit);
        return true;
      },
    });
  } catch {
    proc = undefined; // no host side: the figures through the forward alone
  }
  const local = localProbe(forward.localHost, forward.localPort);
  return {
    stop: async () => {
      const mine = local.stop();
      await proc?.stop({ graceMs: 1000 }).catch(() => undefined);
      const p50 = round(quantile(mine, 0.5));
      const p99 = round(quantile(mine, 0.99));
      const h50 = round(quantile(hostSamples, 0.5));
      const h99 = round(quantile(hostSamples, 0.99));
      return { samples: mine.length, rtt_p50_ms: p50, rtt_p99_ms: p99, host_rtt_p50_ms: h50, host_rtt_p99_ms: h99, host_probe: hostSamples.length ? kind : null, overhead_p50_ms: diff(p50, h50), overhead_p99_ms: diff(p99, h99) };
    },
  };
}
