// The child processes a simulated server holds, as the real engines' process trees have them (vLLM's EngineCore,
// SGLang's scheduler and detokenizer, TokenSpeed's engine and gateway, TensorRT-LLM's MPI daemon with its worker in
// another process group). They serve nothing: they exist so that a runner's teardown meets the real tree's shape.
import { spawn, type ChildProcess } from 'node:child_process';
import type { FrameworkKey } from '../core/frameworks/types';

/** One child: its process title, and whether it starts its own session/process group (setsid), as orted does. */
interface ChildSpec {
  title: string;
  detached: boolean;
  /** A grandchild it starts in its own group (an MPI worker under the daemon). */
  worker?: string;
}

/**
 * Titles as the engines set them: vLLM `VLLM::EngineCore` (vllm/utils/system_utils.py set_process_title, text-search hit);
 * SGLang `sglang::scheduler` / `sglang::detokenizer` (python/sglang/srt/managers, setproctitle; text-search hit);
 * TokenSpeed's orchestrator spawns `python -m smg_grpc_servicer.tokenspeed` and `python -m smg launch` with
 * asyncio.create_subprocess_exec, no new session (lightseekorg/tokenspeed python/tokenspeed/cli/_proc.py @f4d8ec6e);
 * TensorRT-LLM's workers run under `orted` in a separate process group (ai-dynamo/dynamo PR #7122, NVIDIA/TensorRT-LLM PR #16404).
 */
function treeOf(fw: FrameworkKey, tokenspeedGateway: boolean): ChildSpec[] {
  switch (fw) {
    case 'vllm':
      return [{ title: 'VLLM::EngineCore', detached: false }];
    case 'sglang':
      return [
        { title: 'sglang::scheduler', detached: false },
        { title: 'sglang::detokenizer', detached: false },
      ];
    case 'tokenspeed':
      return tokenspeedGateway
        ? [
            { title: 'tokenspeed::engine (smg_grpc_servicer.tokenspeed)', detached: false },
            { title: 'tokenspeed::gateway (smg launch)', detached: false },
          ]
        : [{ title: 'tokenspeed::scheduler', detached: false }];
    case 'tensorrt_llm':
      return [{ title: 'orted', detached: true, worker: 'trtllm::mpi-worker' }];
  }
}

// The child's program (node -e). argv: title, mode (`follow`: exit when the parent's pipe closes; `linger`: on a
// close without `bye`, stay lingerMs as an orphan), lingerMs, worker title ('' for none).
const CHILD = `
const [title, mode, lingerMs, worker] = process.argv.slice(1);
process.title = title;
const keep = setInterval(() => undefined, 1 << 30);
let sub;
if (worker) {
  sub = require('node:child_process').spawn(process.execPath, ['-e', process.env.AUTOBENCH_SIM_CHILD_SRC, worker, 'follow', '0', ''], { stdio: ['pipe', 'ignore', 'ignore'], env: process.env });
  sub.on('error', () => undefined);
}
const quit = () => { clearInterval(keep); if (sub && sub.stdin) sub.stdin.end(); process.exit(0); };
let bye = false;
process.stdin.on('data', (d) => { if (String(d).includes('bye')) { bye = true; quit(); } });
process.stdin.on('error', () => undefined);
process.stdin.on('end', () => { if (bye || mode === 'follow') quit(); else setTimeout(quit, Number(lingerMs)); });
`;

export interface ProcessTree {
  pids: number[];
  /** Tells every child the server is shutting down cleanly and waits (at most `waitMs`) for them to exit. */
  close(waitMs?: number): Promise<void>;
}

/** How long an orted-like child stays after its server died without a clean shutdown (a SIGKILL, a crash). */
export const ORPHAN_LINGER_MS = 3_600_000;

/** Starts the children of a simulated server; each one's pid line goes to the server log. */
export function startProcessTree(fw: FrameworkKey, log: (line: string) => void, o: { tokenspeedGateway?: boolean } = {}): ProcessTree {
  const children: ChildProcess[] = [];
  for (const spec of treeOf(fw, o.tokenspeedGateway ?? true)) {
    const child = spawn(process.execPath, ['-e', CHILD, spec.title, spec.detached ? 'linger' : 'follow', String(ORPHAN_LINGER_MS), spec.worker ?? ''], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: spec.detached,
      env: { ...process.env, AUTOBENCH_SIM_CHILD_SRC: CHILD },
    });
    child.on('error', (e) => log(`autobench-sim: could not start the simulated ${spec.title} process: ${e.message}`));
    child.stdin?.on('error', () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    children.push(child);
    const group = spec.detached ? ', its own process group (setsid)' : '';
    log(`(${spec.title} pid=${child.pid ?? '?'}) autobench-sim: simulated ${spec.title} process started${group}`);
  }
  return {
    pids: children.map((c) => c.pid ?? -1).filter((p) => p > 0),
    async close(waitMs = 2000) {
      const exits = children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
          }),
      );
      for (const c of children) {
        c.stdin?.write('bye\n');
        c.stdin?.end();
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(exits), new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
      clearTimeout(timer);
    },
  };
}
