// bench/sim's server side, in its own process: the simulated engine, or a bare node:http SSE server that writes
// the same chunks as fast as it can (the loopback ceiling the simulator is compared with).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimServer, type SimServer } from '../src/sim';

type Msg = { cmd: 'sim'; args: string[]; speed: number; debugTiming: boolean } | { cmd: 'peer' } | { cmd: 'stop' };

let sim: SimServer | undefined;
let peer: ReturnType<typeof createServer> | undefined;

function send(v: unknown): void {
  process.send?.(v);
}

/** One chunk per stream per turn of the event loop, like a decode step with every stream in the batch. */
function startPeer(): Promise<string> {
  const streams = new Set<{ res: ServerResponse; left: number }>();
  const chunk =
    'data: {"id":"cmpl-peer-00000001","object":"text_completion","created":1700000000,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"text":" lorem","logprobs":null,"finish_reason":null,"stop_reason":null}]}\n\n';
  let ticking = false;
  const tick = (): void => {
    for (const s of streams) {
      s.res.write(chunk);
      if (--s.left <= 0) {
        s.res.end('data: [DONE]\n\n');
        streams.delete(s);
      }
    }
    if (streams.size > 0) setImmediate(tick);
    else ticking = false;
  };
  peer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const n = (JSON.parse(body) as { max_tokens: number }).max_tokens;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      streams.add({ res, left: n });
      if (!ticking) {
        ticking = true;
        setImmediate(tick);
      }
    });
  });
  return new Promise((resolve) => peer?.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(peer?.address() as AddressInfo).port}`)));
}

process.on('message', (m: Msg) => {
  void (async () => {
    if (m.cmd === 'sim') {
      await sim?.close();
      sim = await startSimServer({ framework: 'vllm', args: m.args, port: 0, sim: { speed: m.speed, debugTiming: m.debugTiming, logIntervalMs: 0 } });
      send({ url: sim.url });
    } else if (m.cmd === 'peer') {
      send({ url: await startPeer() });
    } else {
      await sim?.close();
      peer?.close();
      peer?.closeAllConnections();
      send({ stopped: true });
      process.exit(0);
    }
  })();
});
send({ ready: true });
