// Times `validate` work in process: all shipped configs, and one 5,000-line config. Prints medians.
// Run: npm run bench:validate   (or: node --import tsx bench/validate.ts [--runs N])
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { checkConfigText } from '../src/core/config/check';
import { collectConfigFiles } from '../src/core/config/files';
import { largeConfig } from './large-config';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;

function stats(samples: number[]): { median: number; p90: number; min: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { median: at(0.5), p90: at(0.9), min: s[0] ?? NaN };
}

function time(fn: () => void, runs: number): number[] {
  for (let i = 0; i < 3; i++) fn(); // warm the JIT and the schema compiler
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

function report(label: string, ours: number[], peer: number[]): void {
  const o = stats(ours);
  const p = stats(peer);
  console.log(
    `${label.padEnd(34)} median ${o.median.toFixed(2).padStart(8)} ms  p90 ${o.p90.toFixed(2).padStart(8)} ms  min ${o.min.toFixed(2).padStart(8)} ms` +
      `   | yaml.parseDocument alone: median ${p.median.toFixed(2)} ms  (ratio ${(o.median / p.median).toFixed(2)}x)`,
  );
}

const root = resolve(__dirname, '..');
const { files } = collectConfigFiles([join(root, 'configs', 'cookbook-llm')]);
const texts = files.map((f) => readFileSync(f, 'utf8'));
const big = largeConfig(5000);

console.log(`node ${process.version}, ${RUNS} runs each; shipped configs: ${files.length} files, ${texts.reduce((a, t) => a + t.split('\n').length, 0)} lines`);
report(
  `all ${files.length} shipped configs`,
  time(() => texts.forEach((t) => checkConfigText(t)), RUNS),
  time(() => texts.forEach((t) => parseDocument(t, { version: '1.1' })), RUNS),
);
const bigResult = checkConfigText(big);
const errs = bigResult.findings.filter((f) => f.severity === 'error');
if (errs.length) throw new Error(`large config should be valid: ${errs.map((e) => e.message).join('; ')}`);
report(
  `one ${big.split('\n').length - 1}-line config`,
  time(() => checkConfigText(big), RUNS),
  time(() => parseDocument(big, { version: '1.1' }), RUNS),
);
