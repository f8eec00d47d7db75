// Preflight: the target's --help texts and versions captured and every candidate checked against them, the GPUs checked free, and a smoke server.
import { runBenchmark, type Backend } from '../client';
import { checkParsedConfig } from '../core/config/check';
import { loadSnapshotFiles } from '../core/config/snapshot-flags';
import type { Workload } from '../core/workload/types';
import type { Executor } from '../exec';
import { skipForUnknown, unknownFlags } from '../core/plan/frameworks';
import type { PlanFramework, RunPlan } from '../core/plan/types';
import type { LiveServer } from './server';

export { captureHelp, captureVersion, type HelpCapture, type VersionCapture } from './cli-capture';

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
  const opts = { backend, baseUrl: server.baseUrl, ...(server.model ? { model: server.model } : {}), ...(server.headers ? { headers: { ...server.headers } } : {}), warmupRequests: 0, readyCheckTimeoutS: server.noModelList && server.model ? 0 : 10, stream: true };
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
