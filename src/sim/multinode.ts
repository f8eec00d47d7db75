// The simulator's multi-node launch: the head (rank 0) serves HTTP and takes the other ranks at its rendezvous port
// (SGLang/TokenSpeed --dist-init-addr, vLLM --master-addr/--master-port); a rank > 0 serves nothing, joins the head,
// logs it, and stays until it is signalled or the head goes away.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { FrameworkKey } from '../core/frameworks/types';

export interface NodeRole {
  nnodes: number;
  rank: number;
  host: string;
  port: number;
}

/** The value of `--name V` / `--name=V` (the last one wins, as argparse does). */
function flagValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let v: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    for (const n of names) {
      if (a === n && i + 1 < argv.length) v = argv[i + 1];
      else if (a.startsWith(`${n}=`)) v = a.slice(n.length + 1);
    }
  }
  return v;
}

/** This process's place in a multi-node launch; undefined for one node. */
export function nodeRole(fw: FrameworkKey, argv: readonly string[]): NodeRole | undefined {
  const nnodes = Number(flagValue(argv, ['--nnodes']) ?? '1');
  if (!Number.isInteger(nnodes) || nnodes <= 1) return undefined;
  const rank = Number(flagValue(argv, ['--node-rank']) ?? '0');
  if (fw === 'vllm') {
    return { nnodes, rank, host: flagValue(argv, ['--master-addr']) ?? '127.0.0.1', port: Number(flagValue(argv, ['--master-port']) ?? '29501') };
  }
  const addr = flagValue(argv, ['--dist-init-addr', '--nccl-init-addr']) ?? '';
  const colon = addr.lastIndexOf(':');
  return { nnodes, rank, host: colon > 0 ? addr.slice(0, colon) : addr, port: colon > 0 ? Number(addr.slice(colon + 1)) : NaN };
}

/** Why a multi-node command line cannot run, in the engine's words; undefined when it can. */
export function roleProblem(r: NodeRole): string | undefined {
  if (!Number.isInteger(r.rank) || r.rank < 0 || r.rank >= r.nnodes) return `node rank ${r.rank} is not in 0..${r.nnodes - 1}`;
  if (!r.host || !Number.isInteger(r.port) || r.port <= 0 || r.port > 65535) return `a multi-node launch needs the head's address and port (got '${r.host}:${r.port}')`;
  return undefined;
}

const TAG = 'autobench-sim (simulated multi-node)';

/** The head's rendezvous: logs each rank that joins; closed with the server. */
export function headRendezvous(r: NodeRole, log: (line: string) => void): Promise<Server> {
  const peers = new Set<Socket>();
  const server = createServer((sock) => {
    peers.add(sock);
    sock.on('close', () => peers.delete(sock));
    sock.on('error', () => undefined);
    sock.once('data', (d) => log(`${TAG}: head (rank 0 of ${r.nnodes}): ${d.toString('utf8').trim()} joined from ${sock.remoteAddress ?? '?'}`));
  });
  const close = server.close.bind(server);
  server.close = (cb) => {
    for (const p of peers) p.destroy();
    return close(cb);
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(r.port, '0.0.0.0', () => {
      log(`${TAG}: head (rank 0 of ${r.nnodes}): waiting for the other ranks on port ${r.port}`);
      resolve(server);
    });
  });
}

function connectOnce(host: string, port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.once('connect', () => resolve(s));
    s.once('error', () => {
      s.destroy();
      resolve(undefined);
    });
  });
}

/** A rank > 0: joins the head (retrying while it starts), then stays until `stop` resolves or the head goes away. Exit status. */
export async function runWorker(r: NodeRole, log: (line: string) => void, stop: Promise<unknown>, joinTimeoutMs = 120_000): Promise<number> {
  log(`${TAG}: node rank ${r.rank} of ${r.nnodes}: no HTTP server on this node; joining the head at ${r.host}:${r.port}`);
  let stopped = false;
  void stop.then(() => (stopped = true));
  const deadline = Date.now() + joinTimeoutMs;
  let sock: Socket | undefined;
  while (!stopped && !(sock = await connectOnce(r.host, r.port))) {
    if (Date.now() > deadline) {
      log(`${TAG}: ERROR: node rank ${r.rank} could not reach the head at ${r.host}:${r.port} within ${joinTimeoutMs / 1000} s`);
      return 1;
    }
    await Promise.race([new Promise((res) => setTimeout(res, 200)), stop]);
  }
  if (!sock) return 0;
  const joined = sock;
  joined.write(`node rank ${r.rank}\n`);
  log(`${TAG}: node rank ${r.rank} of ${r.nnodes}: joined the head at ${r.host}:${r.port}`);
  const headGone = new Promise<void>((res) => {
    joined.once('close', () => res());
    joined.once('error', () => res());
  });
  await Promise.race([stop, headGone]);
  log(`${TAG}: node rank ${r.rank}: ${stopped ? 'stopping' : 'the head closed the group; stopping'}`);
  joined.destroy();
  return 0;
}
