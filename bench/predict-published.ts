// How close the simulated engine model comes to published GPU measurements (test/fixtures/published/: each point with
// its source and stated conditions): uncalibrated, then leave-one-source-out — per GPU family × weight precision,
// prefill and decode speed factors fitted to every other source's points and applied to this source's. Prints median
// |error|, the median latency ratio (predicted / published), the share within 25% and the worst point, overall and per
// engine, GPU, TP and metric, and issue 27's must-show against the leave-one-source-out figures; --write stores the
// uncalibrated figures in src/predict/model-error.json, which every prediction states.
// Run: npm run bench:predict-published [-- --dir FOLDER] [--fit-points 24] [--no-loso] [--write] [--verbose]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL_ERROR_FILE, type ModelError } from '../src/predict/model-error';
import { corpusDigest, fitFactors, groupOf, predictPublished, readCorpus, summarizeErrors, type ErrorSummary, type PublishedPoint, type PublishedSource } from '../src/predict/published';
import type { Factors } from '../src/predict/types';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? def) : def;
};
const verbose = process.argv.includes('--verbose');
const FIT_POINTS = Number(arg('fit-points', '24'));
const scratch = mkdtempSync(join(tmpdir(), 'autobench-published-'));

interface Row {
  point: PublishedPoint;
  source: string;
  ratio: number;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

function line(label: string, s: ErrorSummary): string {
  if (s.n === 0) return `  ${label.padEnd(28)} no points`;
  const lat = s.medianLatencyRatio === null ? '     -' : s.medianLatencyRatio.toFixed(3);
  return `  ${label.padEnd(28)} n=${String(s.n).padStart(3)}  median |error| ${pct(s.medianAbsError).padStart(6)}  latency ratio ${lat}  within 25% ${pct(s.within25).padStart(6)}  worst ${s.worst ? `${s.worst.ratio.toFixed(2)}x (${s.worst.where})` : '-'}`;
}

function report(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log(line('all', summarizeErrors(rows)));
  const by = (key: (r: Row) => string, name: string): void => {
    for (const k of [...new Set(rows.map(key))].sort()) console.log(line(`${name} ${k}`, summarizeErrors(rows.filter((r) => key(r) === k))));
  };
  by((r) => r.source, 'source');
  by((r) => r.point.engine, 'engine');
  by((r) => r.point.gpu, 'GPU');
  by((r) => `TP${r.point.tp}`, '');
  by((r) => r.point.metric, 'metric');
}

function predictAll(sources: PublishedSource[], factorsFor: (s: PublishedSource, p: PublishedPoint) => Factors | undefined): { rows: Row[]; failed: string[] } {
  const rows: Row[] = [];
  const failed: string[] = [];
  for (const s of sources) {
    for (const p of s.points) {
      const r = predictPublished(p, scratch, factorsFor(s, p));
      if (r.ok) rows.push({ point: p, source: s.id, ratio: r.ratio });
      else failed.push(`${s.id}: ${p.model} ${p.gpu} TP${p.tp} ${p.metric}: ${r.reason}`);
      if (verbose && r.ok) console.log(`    ${s.id} ${p.engine} ${p.model} ${p.gpu} TP${p.tp} ${p.isl}/${p.osl} ${p.load.kind} ${p.metric}: published ${p.value}, predicted ${r.predicted.toFixed(1)} (${r.ratio.toFixed(2)}x)`);
    }
  }
  return { rows, failed };
}

/** The uncalibrated model's error on the corpus, for every prediction to state (src/predict/model-error.json). */
function writeModelError(dir: string, sources: PublishedSource[], rows: Row[]): void {
  const s = summarizeErrors(rows);
  const doc: ModelError = {
    measured: new Date().toISOString().slice(0, 10),
    corpus_digest: corpusDigest(dir),
    points: s.n,
    sources: sources.filter((x) => rows.some((r) => r.source === x.id)).length,
    median_abs_error: Number(s.medianAbsError.toFixed(4)),
    rel_sd: Number((s.medianAbsLogError / 0.6745).toFixed(4)),
    latency_ratio: s.medianLatencyRatio === null ? null : Number(s.medianLatencyRatio.toFixed(4)),
    within_25: Number(s.within25.toFixed(4)),
  };
  writeFileSync(MODEL_ERROR_FILE, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`  wrote ${MODEL_ERROR_FILE}`);
}

/** Issue 27's bar for the leave-one-source-out figures, each line MET or NOT MET. */
function mustShow(s: ErrorSummary): void {
  const lat = s.medianLatencyRatio;
  const lines: Array<[string, boolean]> = [
    [`median |error| ${pct(s.medianAbsError)} (at most 8%)`, s.medianAbsError <= 0.08],
    [`median latency ratio ${lat === null ? '-' : lat.toFixed(3)} (0.95-1.05)`, lat !== null && lat >= 0.95 && lat <= 1.05],
    [`${pct(s.within25)} of points within 25% (at least 90%)`, s.within25 >= 0.9],
  ];
  console.log('\nmust-show (leave one source out):');
  for (const [text, met] of lines) console.log(`  ${met ? 'MET    ' : 'NOT MET'} ${text}`);
}

function main(): void {
  const dir = arg('dir', join(__dirname, '..', 'test', 'fixtures', 'published'));
  const { sources, problems } = readCorpus(dir);
  const n = sources.reduce((a, s) => a + s.points.length, 0);
  console.log(`bench:predict-published — ${n} published points from ${sources.length} sources in ${dir}; predictions of the SIMULATED engine model on the virtual clock`);
  const reasons = new Map<string, number>();
  for (const p of problems) reasons.set(p.replace(/^.*points\[\d+\]: /, ''), (reasons.get(p.replace(/^.*points\[\d+\]: /, '')) ?? 0) + 1);
  for (const [r, k] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  left out: ${k} point(s): ${r}`);
  if (n === 0) process.exit(1);
  const t0 = performance.now();
  const plain = predictAll(sources, () => undefined);
  report('uncalibrated model', plain.rows);
  if (process.argv.includes('--write')) writeModelError(dir, sources, plain.rows);
  if (process.argv.includes('--no-loso')) return;
  for (const f of plain.failed) console.log(`  not predicted: ${f}`);
  // Leave one source out: each source predicted with factors fitted, per GPU × precision, to the other sources.
  const folds = new Map<string, Map<string, Factors>>();
  for (const s of sources) {
    const fits = new Map<string, Factors>();
    const train = sources.filter((o) => o !== s).flatMap((o) => o.points);
    for (const g of new Set(s.points.map(groupOf))) {
      // At most FIT_POINTS of them, spread over the group (a fit re-predicts its points some 25 times).
      const all = train.filter((p) => groupOf(p) === g);
      const pts = all.filter((_, i) => i % Math.max(1, Math.ceil(all.length / FIT_POINTS)) === 0);
      if (pts.length) fits.set(g, fitFactors(pts, scratch));
    }
    folds.set(s.id, fits);
    if (verbose) console.log(`  fold ${s.id}: ${[...fits].map(([g, f]) => `${g} prefill x${f.prefill.toFixed(2)} decode x${f.decode.toFixed(2)}`).join('; ') || 'no group with training points'}`);
  }
  const loso = predictAll(sources, (s, p) => folds.get(s.id)?.get(groupOf(p)));
  report('leave one source out (per GPU family x precision, prefill and decode factors fitted to the other sources; a group no other source has stays uncalibrated)', loso.rows);
  mustShow(summarizeErrors(loso.rows));
  console.log(`\n${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

main();
