// Preflight: the target's --help texts and versions captured and every candidate checked against them, the GPUs checked free, and a smoke server.
import { runBenchmark, type Backend } from '../client';
import { checkParsedConfig } from '../core/config/check';
import { loadSnapshotFiles } from '../core/config/snapshot-flags';
import { shlexSplit } from '../core/candidates/shell';
import type { FrameworkKey } from '../core/frameworks/types';
import type { Workload } from '../core/workload/types';
import type { Executor } from '../exec';
import type { RunDir } from './artifacts';
import { skipForUnknown, unknownFlags } from '../core/plan/frameworks';
import type { PlanFramework, RunPlan } from '../core/plan/types';
import type { LiveServer } from './server';

/** File names the snapshot discovery recognises (validate --help-dir reads the same folder). */
const HELP_FILE: Record<FrameworkKey, string> = {
  sglang: 'sglang_launch_server.txt',
  vllm: 'vllm_serve_all.txt',
  tensorrt_llm: 'trtllm_serve.txt',
  tokenspeed: 'tokenspeed_serve.txt',
};

const PACKAGE: Record<FrameworkKey, string> = { sglang: 'sglang', vllm: 'vllm', tensorrt_llm: 'tensorrt_llm', tokenspeed: 'tokenspeed' };

export interface HelpCapture {
  command: string[];
  /** Run-relative path of the saved text. */
  file: string | undefined;
  ok: boolean;
  detail: string;
}

export interface VersionCapture {
  command: string[] | undefined;
  version: string | undefined;
}

/** `vllm serve --help=all` (the grouped summary lists no flags), else `<server command> --help`; vLLM before --help=all falls back to --help. */
export async function captureHelp(ex: Executor, dir: RunDir, fw: FrameworkKey, serverCommand: string, folder = 'help'): Promise<HelpCapture> {
  const prefix = shlexSplit(serverCommand);
  const tries = fw === 'vllm' ? [[...prefix, '--help=all'], [...prefix, '--help']] : [[...prefix, '--help']];
  let last = '';
  for (const cmd of tries) {
    try {
      const r = await ex.run(cmd, { timeoutMs: 120_000 });
      const text = r.stdout.trim() ? r.stdout : r.stderr;
      if (r.code === 0 && /--[a-z]/i.test(text)) {
        const file = dir.writeText(folder ? `${folder}/${HELP_FILE[fw]}` : HELP_FILE[fw], text);
        return { command: cmd, file: dir.rel(file), ok: true, detail: `${cmd.join(' ')}: ${text.split('\n').length} lines` };
      }
      last = `${cmd.join(' ')}: exit ${r.code ?? r.signal}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-1)[0]}` : ''}`;
    } catch (e) {
      last = `${cmd.join(' ')}: ${(e as Error).message}`;
    }
  }
  return { command: tries[0] as string[], file: undefined, ok: false, detail: last };
}

/** The installed version: the program's --version, else the Python package's __version__. */
export async function captureVersion(ex: Executor, fw: FrameworkKey, serverCommand: string): Promise<VersionCapture> {
  const prefix = shlexSplit(serverCommand);
  const prog = prefix[0] ?? '';
  const isPython = /(^|\/)python[\d.]*$/.test(prog);
  const probes: string[][] = [];
  const pyImport = (py: string) => [py, '-c', `import ${PACKAGE[fw]}; print(${PACKAGE[fw]}.__version__)`];
  if (isPython) probes.push(pyImport(prog));
  else probes.push([prog, '--version']);
  // A python -m launcher: the framework also ships a CLI of its name (the simulator's shims answer there).
  if (isPython && fw === 'sglang') probes.push(['sglang', '--version']);
  if (!isPython) probes.push(pyImport('python3'));
  for (const cmd of probes) {
    try {
      const r = await ex.run(cmd, { timeoutMs: 60_000 });
      const m = r.code === 0 ? /\d+\.\d+(?:\.\d+)?[\w.+-]*/.exec(`${r.stdout}\n${r.stderr}`) : null;
      if (m) return { command: cmd, version: m[0] };
    } catch {
      /* next probe */
    }
  }
  return { command: undefined, version: undefined };
}

/** Re-judges a framework's candidates against the captured help (the parsed plan re-checked, not re-read): a flag the CLI lacks skips its candidates. */
export function recheckAgainstHelp(plan: RunPlan, entry: PlanFramework, helpFile: string): { skipped: number; label: string } {
  const fw = entry.framework;
  const captured = loadSnapshotFiles({ [fw]: [helpFile] }).flags[fw];
  if (!captured) return { skipped: 0, label: 'unreadable capture' };
  const check = checkParsedConfig(plan.source.parsed, { kind: 'auto', snapshots: { ...plan.snapshots.flags, [fw]: captured } });
  // The exact CLI decides: a flag the built-in table lacks but the capture lists is fine after all.
  for (const c of entry.candidates) if (c.skip?.kind === 'unknown-flag') delete c.skip;
  skipForUnknown(entry.candidates, unknownFlags(check, fw), `the captured ${helpFile.split('/').pop() ?? helpFile}`);
  return { skipped: entry.candidates.filter((c) => c.skip?.kind === 'unknown-flag').length, label: captured.label };
}

export interface GpuInfo {
  index: number;
  name: string;
  memoryUsedMiB: number;
  memoryTotalMiB: number;
  utilization: number;
  driver: string;
  uuid: string;
}

export interface GpuCheck {
  status: 'free' | 'busy' | 'missing' | 'unavailable';
  detail: string;
  gpus: GpuInfo[];
  requested: number[];
  driver?: string;
}

/** Memory in use on an idle GPU (driver, display) stays well under this. */
const BUSY_MIB = 1024;

/** nvidia-smi on the target: every requested GPU must exist and run nothing; the GPU count is never changed to fit. */
export async function checkGpus(ex: Executor, requested: number[]): Promise<GpuCheck> {
  let r;
  try {
    r = await ex.run(['nvidia-smi', '--query-gpu=index,uuid,name,memory.used,memory.total,utilization.gpu,driver_version', '--format=csv,noheader,nounits'], { timeoutMs: 30_000 });
  } catch (e) {
    return { status: 'unavailable', detail: `nvidia-smi could not run (${(e as Error).message}); GPUs not checked`, gpus: [], requested };
  }
  if (r.code !== 0) return { status: 'unavailable', detail: `nvidia-smi exited with ${r.code ?? r.signal}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n')[0]}` : ''}; GPUs not checked`, gpus: [], requested };
  const gpus: GpuInfo[] = [];
  for (const line of r.stdout.split('\n')) {
    const f = line.split(',').map((s) => s.trim());
    if (f.length < 7) continue;
    gpus.push({ index: Number(f[0]), uuid: f[1] ?? '', name: f[2] ?? '', memoryUsedMiB: Number(f[3]), memoryTotalMiB: Number(f[4]), utilization: Number(f[5]), driver: f[6] ?? '' });
  }
  const apps = await ex.run(['nvidia-smi', '--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits'], { timeoutMs: 30_000 }).catch(() => undefined);
  const procs = (apps?.code === 0 ? apps.stdout : '')
    .split('\n')
    .map((l) => l.split(',').map((s) => s.trim()))
    .filter((f) => f.length >= 2 && f[0]);
  const missing = requested.filter((i) => !gpus.some((g) => g.index === i));
  const base = { gpus, requested, ...(gpus[0] ? { driver: gpus[0].driver } : {}) };
  if (missing.length) return { ...base, status: 'missing', detail: `GPU ${missing.join(', ')} requested but the host has ${gpus.length} GPU(s) (${gpus.map((g) => g.index).join(', ')}); the GPU count is never changed to fit` };
  const busy: string[] = [];
  for (const i of requested) {
    const g = gpus.find((x) => x.index === i) as GpuInfo;
    const onIt = procs.filter((p) => p[0] === g.uuid);
    if (onIt.length) busy.push(`GPU ${i} runs ${onIt.map((p) => `pid ${p[1]} (${p[2] ?? '?'}, ${p[3] ?? '?'} MiB)`).join(', ')}`);
    else if (g.memoryUsedMiB > BUSY_MIB) busy.push(`GPU ${i} has ${g.memoryUsedMiB} MiB in use`);
  }
  if (busy.length) return { ...base, status: 'busy', detail: `${busy.join('; ')}; free them or choose other GPUs (the run never changes the GPU count)` };
  return { ...base, status: 'free', detail: `GPU ${requested.join(', ')} free (${gpus.find((g) => g.index === requested[0])?.name ?? '?'})` };
}

export interface SmokeResult {
  ok: boolean;
  models: string | undefined;
  stream: { ok: boolean; detail: string };
  bench: { ok: boolean; completed: number; failed: number; detail: string };
}

/** On a live server: the model list, one streaming request, then a short burst of at least 5 requests. */
export async function smokeTest(server: LiveServer, backend: Backend, workload: Workload, requests: number, signal: AbortSignal | undefined): Promise<SmokeResult> {
  const out: SmokeResult = { ok: false, models: server.model, stream: { ok: false, detail: '' }, bench: { ok: false, completed: 0, failed: 0, detail: '' } };
  const rows = workload.rows.slice(0, Math.max(5, requests)).map((r) => ({ ...r, outputLen: Math.min(r.outputLen, 16) }));
  const first = rows[0];
  if (!first) return out;
  const opts = { backend, baseUrl: server.baseUrl, ...(server.model ? { model: server.model } : {}), ...(server.headers ? { headers: { ...server.headers } } : {}), warmupRequests: 0, readyCheckTimeoutS: 10, stream: true };
  // A signal of its own, so the client's listeners never pile up on the run's.
  const ac = new AbortController();
  const relay = (): void => ac.abort();
  signal?.addEventListener('abort', relay, { once: true });
  try {
    const one = await runBenchmark({ ...workload, rows: [first] }, opts, { signal: ac.signal });
    const rec = one.records[0];
    out.stream = rec?.success ? { ok: true, detail: `${rec.chunks} chunk(s), ${rec.outputTokens} token(s)` } : { ok: false, detail: rec?.error || 'no answer' };
    const many = await runBenchmark({ ...workload, rows }, opts, { signal: ac.signal });
    const m = many.metrics;
    out.bench = { ok: m.completed === rows.length, completed: m.completed, failed: m.failed, detail: `${m.completed}/${rows.length} requests completed${m.failed ? `; first error: ${many.records.find((x) => !x.success)?.error ?? '?'}` : ''}` };
  } catch (e) {
    const msg = (e as Error).message;
    if (!out.stream.detail) out.stream.detail = msg;
    else out.bench.detail = msg;
  } finally {
    signal?.removeEventListener('abort', relay);
  }
  out.ok = out.stream.ok && out.bench.ok;
  return out;
}
