// Two runs side by side (e.g. before and after a framework upgrade): per scenario each run's verdict, and each
// candidate's SLA capacity in both with the change, called by the same test the verdict uses (decide.ts) on the two
// runs' per-launch capacities, with each run's own launch noise.
import { compareCapacities, DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, type PooledNoise } from './decide';
import { ASSUMED_LAUNCH_NOISE } from './verdict';
import type { ReportModel, VerdictCandidate, VerdictEntry } from './report-model';

export interface CandidateChange {
  framework: string;
  candidate: string;
  /** SLA capacity (req/s) in run A and B; null when it met the SLA in only one of them. */
  a: number | null;
  b: number | null;
  /** (b - a) / a; null without both. */
  change: number | null;
  /** 'faster' / 'slower' only when the change is significant and at least the minimum effect; otherwise 'within the noise'. */
  call: 'faster' | 'slower' | 'within the noise' | 'only in A' | 'only in B';
}

export interface ScenarioComparison {
  scenario: string;
  winnerA: string;
  winnerB: string;
  candidates: CandidateChange[];
}

export interface RunComparison {
  a: string;
  b: string;
  scenarios: ScenarioComparison[];
  /** One side simulated and the other not: the comparison is labelled, never silent. */
  mixed: boolean;
  /** Both sides from the simulated engine: every number is labelled as such. */
  simulated: boolean;
}

const key = (c: VerdictCandidate): string => `${c.framework} ${c.candidate}`;

function winnerText(v: VerdictEntry | undefined): string {
  if (!v) return 'not in this run';
  if (!v.winner) return 'none met the SLA';
  if (v.decided) return key(v.winner);
  const word = v.outcome === 'equivalent' ? 'equivalent' : v.outcome === 'undecided' ? 'undecided' : 'tie';
  return `${word}: ${[v.winner, ...v.ties].map(key).join(', ')}`;
}

/** A run's launch noise as its verdict recorded it (older reports: the assumed noise). */
function noiseOf(v: VerdictEntry | undefined): PooledNoise {
  return v?.noise ? { relSd: v.noise.rel_sd, df: v.noise.df } : ASSUMED_LAUNCH_NOISE;
}

/** The noisier run's noise with the fewer degrees of freedom: a change is not called on the quieter run's word alone. */
function bothNoise(va: VerdictEntry | undefined, vb: VerdictEntry | undefined): PooledNoise {
  const a = noiseOf(va);
  const b = noiseOf(vb);
  return { relSd: Math.max(a.relSd, b.relSd), df: Math.min(a.df, b.df) };
}

/** B against A by test: faster or slower when the change's interval excludes 0 and the change is at least the minimum effect. */
function callOf(a: VerdictCandidate, b: VerdictCandidate, noise: PooledNoise, minEffect: number): CandidateChange['call'] {
  const xa = a.capacities?.length ? a.capacities : [a.score];
  const xb = b.capacities?.length ? b.capacities : [b.score];
  const c = compareCapacities(xb, xa, { alpha: DEFAULT_ALPHA, pooled: noise });
  if (!c.relativeCi || c.relative === null || Math.abs(c.relative) < minEffect) return 'within the noise';
  if (c.relativeCi[0] > 0) return 'faster';
  if (c.relativeCi[1] < 0) return 'slower';
  return 'within the noise';
}

function changes(va: VerdictEntry | undefined, vb: VerdictEntry | undefined): CandidateChange[] {
  const noise = bothNoise(va, vb);
  const minEffect = Math.max(va?.min_effect ?? DEFAULT_MIN_EFFECT, vb?.min_effect ?? DEFAULT_MIN_EFFECT);
  const ra = new Map((va?.ranked ?? []).map((c) => [key(c), c]));
  const rb = new Map((vb?.ranked ?? []).map((c) => [key(c), c]));
  const keys = [...new Set([...ra.keys(), ...rb.keys()])];
  return keys.map((k) => {
    const a = ra.get(k);
    const b = rb.get(k);
    const first = (a ?? b) as VerdictCandidate;
    const change = a && b && a.score > 0 ? (b.score - a.score) / a.score : null;
    const call = a && b ? callOf(a, b, noise, minEffect) : a ? 'only in A' : 'only in B';
    return { framework: first.framework, candidate: first.candidate, a: a?.score ?? null, b: b?.score ?? null, change, call };
  });
}

export function compareRunReports(a: ReportModel, b: ReportModel, names: { a: string; b: string }): RunComparison {
  const scenarios = [...new Set([...a.scenarios, ...b.scenarios])];
  return {
    a: names.a,
    b: names.b,
    mixed: a.simulatedRows > 0 !== b.simulatedRows > 0,
    simulated: a.simulatedRows > 0 && b.simulatedRows > 0,
    scenarios: scenarios.map((s) => {
      const va = a.verdicts.find((v) => v.scenario === s);
      const vb = b.verdicts.find((v) => v.scenario === s);
      return { scenario: s, winnerA: winnerText(va), winnerB: winnerText(vb), candidates: changes(va, vb) };
    }),
  };
}

const rate = (x: number | null): string => (x === null ? '' : x.toFixed(2));
const pct = (x: number | null): string => (x === null ? '' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`);
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/</g, '\\<');

/** The comparison as Markdown: per scenario the two winners, then every candidate's SLA capacity in both. */
export function comparisonMarkdown(c: RunComparison): string {
  const out = [`# Compare runs`, '', `- A: ${cell(c.a)}`, `- B: ${cell(c.b)}`, ''];
  if (c.mixed) out.push('> One run is from the simulated engine and the other is not: their numbers are not comparable.', '');
  if (c.simulated) out.push('> **Simulated:** both runs are from the built-in simulated engine; no number here is a GPU result.', '');
  out.push('SLA capacity in req/s (each run\u2019s mean over its launches). A change is called only when it is significant (95%, with the noisier run\u2019s launch-to-launch noise) and at least the minimum effect (3% unless the plans say otherwise); otherwise it is within the noise.', '');
  for (const s of c.scenarios) {
    out.push(`## ${cell(s.scenario)}`, '', `Winner: A ${cell(s.winnerA)} · B ${cell(s.winnerB)}`, '');
    if (s.candidates.length === 0) {
      out.push('_No candidate met the SLA in either run._', '');
      continue;
    }
    out.push('| Framework | Candidate | A req/s | B req/s | Change | Call |', '| --- | --- | ---: | ---: | ---: | --- |');
    for (const x of s.candidates) out.push(`| \`${cell(x.framework)}\` | ${cell(x.candidate)} | ${rate(x.a)} | ${rate(x.b)} | ${pct(x.change)} | ${x.call} |`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
