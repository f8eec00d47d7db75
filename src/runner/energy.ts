// Energy per output token for each trial: on a simulated server the engine's modelled energy counter read before and
// after (src/sim/power.ts; a unit's router sums its workers'), on GPU targets nvidia-smi's power.draw sampled on the
// launch's GPUs through the trial and integrated. Kept for the trial's row as `energy`; the report's per-joule column
// and `verdict.objective: per_joule` read it.
import type { Executor } from '../exec';
import type { LiveServer } from './server';

const ENERGY_PATH = '/autobench/sim/energy';
const TIMING_HEADER = 'x-autobench-sim-timing';
/** nvidia-smi's sampling period (ms): power.draw is a ~1 s average on recent drivers, so faster adds little. */
export const SAMPLE_MS = 200;

export interface EnergyBlock {
  /** modelled: the simulator's power model; nvidia-smi: power.draw sampled every SAMPLE_MS and integrated; unmeasured: see note. */
  basis: 'modelled' | 'nvidia-smi' | 'unmeasured';
  joules: number | null;
  /** The window the joules cover (s; modelled seconds on the simulator). */
  seconds: number | null;
  mean_power_w: number | null;
  /** Output tokens generated in that window (warm-ups included, as the energy is). */
  output_tokens: number | null;
  j_per_output_token: number | null;
  gpus: number | null;
  samples?: number;
  note?: string;
}

const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

function block(basis: EnergyBlock['basis'], joules: number, seconds: number, tokens: number, gpus: number, extra: Partial<EnergyBlock> = {}): EnergyBlock {
  return { basis, joules: round(joules), seconds: round(seconds), mean_power_w: seconds > 0 ? round(joules / seconds, 1) : null, output_tokens: tokens, j_per_output_token: tokens > 0 ? round(joules / tokens, 4) : null, gpus, ...extra };
}

export function unmeasuredEnergy(note: string): EnergyBlock {
  return { basis: 'unmeasured', joules: null, seconds: null, mean_power_w: null, output_tokens: null, j_per_output_token: null, gpus: null, note };
}

interface SimReading {
  joules: number;
  seconds: number;
  output_tokens: number;
  gpus: number;
}

async function readSim(server: Pick<LiveServer, 'baseUrl' | 'headers'>): Promise<SimReading | undefined> {
  try {
    const r = await fetch(new URL(ENERGY_PATH, server.baseUrl), { headers: { ...(server.headers ?? {}), [TIMING_HEADER]: '1' }, signal: AbortSignal.timeout(5000) });
    if (!r.ok) return undefined;
    const j = (await r.json()) as Partial<SimReading>;
    return [j.joules, j.seconds, j.output_tokens, j.gpus].every((x) => typeof x === 'number' && Number.isFinite(x)) ? (j as SimReading) : undefined;
  } catch {
    return undefined;
  }
}

/** One nvidia-smi line `index, watts` (watts may be [N/A]). */
export function parsePowerLine(line: string): { gpu: string; watts: number } | undefined {
  const m = /^\s*(\d+)\s*,\s*([0-9.]+)\s*$/.exec(line);
  return m ? { gpu: m[1] as string, watts: Number(m[2]) } : undefined;
}

/** Joules from timed power samples per GPU (trapezoids between consecutive samples of the same GPU). */
export function integrate(samples: ReadonlyArray<{ t: number; gpu: string; watts: number }>): { joules: number; seconds: number; gpus: number; samples: number } {
  const by = new Map<string, Array<{ t: number; watts: number }>>();
  for (const s of samples) by.set(s.gpu, [...(by.get(s.gpu) ?? []), s]);
  let joules = 0;
  let seconds = 0;
  for (const pts of by.values()) {
    pts.sort((a, b) => a.t - b.t);
    for (let i = 1; i < pts.length; i++) joules += (((pts[i - 1] as { watts: number }).watts + (pts[i] as { watts: number }).watts) / 2) * (((pts[i] as { t: number }).t - (pts[i - 1] as { t: number }).t) / 1000);
    if (pts.length > 1) seconds = Math.max(seconds, ((pts[pts.length - 1] as { t: number }).t - (pts[0] as { t: number }).t) / 1000);
  }
  return { joules, seconds, gpus: by.size, samples: samples.length };
}

/** nvidia-smi sampling the launch's GPUs (all it sees when `gpus` is undefined) until stopped. */
async function sampleGpus(ex: Executor, gpus: readonly string[] | undefined): Promise<{ stop(): Promise<Array<{ t: number; gpu: string; watts: number }>> } | string> {
  const samples: Array<{ t: number; gpu: string; watts: number }> = [];
  const argv = ['nvidia-smi', '--query-gpu=index,power.draw', '--format=csv,noheader,nounits', `-lms`, String(SAMPLE_MS), ...(gpus?.length ? ['-i', gpus.join(',')] : [])];
  try {
    const proc = await ex.start({
      argv,
      onLine: (line) => {
        const p = parsePowerLine(line);
        if (p) samples.push({ t: performance.now(), ...p });
        return true;
      },
    });
    return { stop: async () => (await proc.stop({ graceMs: 2000 }), samples) };
  } catch (e) {
    return `nvidia-smi could not start (${(e as Error).message})`;
  }
}

/** Output tokens of every request the trial sent (measured and warm-up), the window the energy covers. */
function tokensOf(outcome: unknown): number | undefined {
  const r = (outcome as { result?: { records: ReadonlyArray<{ outputTokens: number }>; warmup: ReadonlyArray<{ outputTokens: number }> } }).result;
  if (!r) return undefined;
  let n = 0;
  for (const x of new Set([...r.records, ...r.warmup])) n += x.outputTokens;
  return n;
}

const energies = new WeakMap<LiveServer, EnergyBlock>();

export interface EnergyPlace {
  executor: Executor;
  /** The GPU ids the launch runs on (local/ssh); undefined: every GPU nvidia-smi shows there (a Slurm job's). */
  gpus?: readonly string[];
}

/** Runs a trial and keeps its energy for the row: modelled on a simulated server, sampled with nvidia-smi otherwise. */
export async function withEnergy<T>(server: LiveServer, place: EnergyPlace, run: () => Promise<T>): Promise<T> {
  energies.delete(server);
  if (server.simulated) {
    const a = await readSim(server);
    const outcome = await run();
    const b = a && (await readSim(server));
    energies.set(server, a && b ? block('modelled', b.joules - a.joules, b.seconds - a.seconds, b.output_tokens - a.output_tokens, b.gpus) : unmeasuredEnergy('the simulated engine did not report its energy counter'));
    return outcome;
  }
  const sampler = await sampleGpus(place.executor, place.gpus);
  const outcome = await run();
  if (typeof sampler === 'string') {
    energies.set(server, unmeasuredEnergy(sampler));
    return outcome;
  }
  const got = integrate(await sampler.stop());
  const tokens = tokensOf(outcome);
  energies.set(server, got.gpus === 0 || got.seconds === 0 || tokens === undefined ? unmeasuredEnergy('nvidia-smi gave fewer than two power readings per GPU in the trial') : block('nvidia-smi', got.joules, got.seconds, tokens, got.gpus, { samples: got.samples }));
  return outcome;
}

/** The energy of the last trial on this server. */
export function energyOf(server: LiveServer): EnergyBlock | undefined {
  return energies.get(server);
}
