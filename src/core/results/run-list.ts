// The runs under an autobench-runs/ folder, newest first, each read from its own files: the manifest (plan, target,
// time, status, simulated) and summary.json (the winner or the tie per scenario). What the editor's Runs view lists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

export interface RunEntry {
  dir: string;
  runId: string;
  /** The plan file's name without .yaml ('demo.plan'). */
  plan: string;
  target: string;
  /** ISO time the run was created (the manifest's created_at, else the folder's time). */
  createdAt: string;
  status: string;
  simulated: boolean;
  /** Per scenario: 'chat: vllm c2' or 'chat: tie (vllm c2, sglang baseline)' or 'chat: none'. */
  winners: string[];
  /** What it measured (the manifest's frameworks it ran or skipped, and the candidates they listed): what Rerun and Resume run. */
  scope: { frameworks: string[]; candidates?: string[] };
  /** "demo.plan · 2026-12-02 04:02:13" — what the view and the summary tab are titled. */
  label: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function winnersOf(summary: unknown): string[] {
  if (!isObj(summary) || !Array.isArray(summary.scenarios)) return [];
  const name = (c: unknown) => (isObj(c) ? `${str(c.framework)} ${str(c.candidate)}` : '');
  return summary.scenarios.filter(isObj).map((s) => {
    const ties = Array.isArray(s.ties) ? s.ties.map(name) : [];
    if (!s.winner) return `${str(s.scenario)}: none`;
    if (s.decided === true) return `${str(s.scenario)}: ${name(s.winner)}`;
    const word = s.outcome === 'equivalent' ? 'equivalent' : typeof s.outcome === 'string' ? 'undecided' : 'tie';
    return `${str(s.scenario)}: ${word} (${[name(s.winner), ...ties].join(', ')})`;
  });
}

function scopeOf(manifest: Obj): RunEntry['scope'] {
  const frameworks: string[] = [];
  const candidates = new Set<string>();
  const fws = isObj(manifest.frameworks) ? manifest.frameworks : {};
  for (const [fw, v] of Object.entries(fws)) {
    if (!isObj(v) || (v.status !== 'run' && v.status !== 'skipped')) continue;
    frameworks.push(fw);
    if (Array.isArray(v.candidates)) for (const c of v.candidates) if (isObj(c) && typeof c.id === 'string') candidates.add(c.id);
  }
  return { frameworks, ...(candidates.size ? { candidates: [...candidates] } : {}) };
}

/** "2026-12-02 04:02:13" in UTC: the same in every time zone, as the run ids are; to the second, as two runs a minute apart are common. */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '');
}

/** One run directory (it has a manifest.json), or undefined. */
export function readRunEntry(dir: string): RunEntry | undefined {
  const manifest = readJson(path.join(dir, 'manifest.json'));
  if (!isObj(manifest)) return undefined;
  const planPath = isObj(manifest.plan) ? str(manifest.plan.path) : '';
  const plan = path.basename(planPath || dir).replace(/\.ya?ml$/i, '');
  const createdAt = str(manifest.created_at) || statSync(dir).mtime.toISOString();
  const target = isObj(manifest.target) ? str(manifest.target.spec, '?') : '?';
  return {
    dir,
    runId: str(manifest.run_id, path.basename(dir)),
    plan,
    target,
    createdAt,
    status: str(manifest.status, 'unknown'),
    simulated: manifest.simulated === true,
    winners: winnersOf(readJson(path.join(dir, 'summary.json'))),
    scope: scopeOf(manifest),
    label: `${plan} · ${shortTime(createdAt)}`,
  };
}

/** Every run directory directly under `root`, newest first; a folder that is not a run is left out. */
export function listRuns(root: string): RunEntry[] {
  if (!existsSync(root)) return [];
  const out: RunEntry[] = [];
  for (const name of readdirSync(root)) {
    const dir = path.join(root, name);
    if (!statSync(dir).isDirectory()) continue;
    const e = readRunEntry(dir);
    if (e) out.push(e);
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.dir.localeCompare(b.dir));
}
