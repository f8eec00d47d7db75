// A P/D unit's files (TensorRT-LLM's per-role LLM API options and front end config) written before its processes
// start, into a working folder per launch that every process starts in, so the commands' relative paths resolve as
// shown: the run directory on this machine and on a Slurm cluster (whose nodes share it), a fresh folder on an ssh host.
// Over several Slurm nodes the front end's config names each worker at its node's address.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Unit } from '../core/candidates/unit';
import { unitYaml } from '../core/frameworks/disagg-trtllm';
import type { RunContext } from './context';
import type { RunTarget } from './target-types';

let launches = 0;

export interface UnitDir {
  /** The folder on the target every process starts in. */
  cwd: string;
  /** Removes it after the processes read their files (an ssh host's temp folder); absent: it stays in the run directory. */
  remove?: () => Promise<void>;
}

/**
 * The front end's config with its listen address and each worker URL's host replaced (`host:port` strings, the
 * worker found by its port in the unit's lines), written back the way the unit writes it.
 */
export function retargetFrontEnd(content: string, hostname: string, hostOf: (port: number) => string | undefined): string {
  const doc = parseYaml(content) as Record<string, unknown>;
  doc.hostname = hostname;
  for (const key of ['context_servers', 'generation_servers']) {
    const sec = doc[key] as { urls?: string[] } | undefined;
    if (!sec?.urls) continue;
    sec.urls = sec.urls.map((u) => {
      const port = Number(u.split(':').pop());
      const host = hostOf(port);
      return host ? `${host}:${port}` : u;
    });
  }
  return unitYaml(doc);
}

async function onHost(target: RunTarget): Promise<string> {
  const r = await target.executor.run(['mktemp', '-d'], { timeoutMs: 30_000 });
  const dir = r.stdout.trim();
  if (r.code !== 0 || !dir.startsWith('/')) throw new Error(`could not make a folder for the unit's files on ${target.host}: ${r.stderr.trim() || `exit ${r.code}`}`);
  return dir;
}

/** Writes the unit's files (contents as given: the unit's, or retargeted for its nodes) and says where. */
export async function writeUnitFiles(ctx: RunContext, target: RunTarget, name: string, unit: Unit, contents: Map<string, string>): Promise<UnitDir> {
  const local = target.kind === 'sim' || target.kind === 'local';
  const cwd = target.kind === 'ssh' ? await onHost(target) : ctx.dir.path('units', `${name}-${++launches}`);
  const text = (path: string, dflt: string): string => contents.get(path) ?? dflt;
  if (local) {
    for (const f of unit.files) {
      mkdirSync(dirname(join(cwd, f.path)), { recursive: true });
      writeFileSync(join(cwd, f.path), text(f.path, f.content));
    }
    return { cwd };
  }
  const copyTo = target.executor.copyTo?.bind(target.executor);
  if (!copyTo) throw new Error(`${target.executor.target} cannot take files, and the unit's processes read ${unit.files.map((f) => f.path).join(', ')}`);
  const tmp = mkdtempSync(join(tmpdir(), 'autobench-unit-'));
  try {
    for (const [i, f] of unit.files.entries()) {
      const staged = join(tmp, String(i));
      writeFileSync(staged, text(f.path, f.content));
      await copyTo(staged, `${cwd}/${f.path}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (target.kind !== 'ssh') return { cwd };
  const remove = async (): Promise<void> => {
    const ex = target.executor;
    await (ex.remove ? ex.remove(cwd) : ex.run(['rm', '-rf', '--', cwd], { timeoutMs: 30_000 }).then(() => undefined));
  };
  return { cwd, remove };
}
