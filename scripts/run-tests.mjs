// Runs every *.test.ts under test/ (or the folders given) with node's test runner through tsx: files run side by side
// (--test-concurrency N, default 2, or $AUTOBENCH_TEST_CONCURRENCY), the longest known first. *.long.test.ts only with
// --long or when named, and says so. Each file's time lands in test-artifacts/test-times.json (the next run's order),
// and the total wall time is printed at the end.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const TIMES = 'test-artifacts/test-times.json';

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function concurrencyOf(argv) {
  const i = argv.indexOf('--test-concurrency');
  const raw = i >= 0 ? argv[i + 1] : process.env.AUTOBENCH_TEST_CONCURRENCY;
  if (raw === undefined) return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--test-concurrency takes a whole number >= 1, not '${raw}'`);
    process.exit(2);
  }
  return n;
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
}

/** Runs `files` with node's runner at `concurrency`; their times are merged into `times`. */
function runFiles(files, concurrency, times) {
  const out = 'test-artifacts/test-times.last.json';
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${resolve('scripts/test-times-reporter.mjs')}`, `--test-reporter-destination=${out}`, ...files],
    { stdio: 'inherit' },
  );
  try {
    for (const [f, ms] of Object.entries(JSON.parse(readFileSync(out, 'utf8')))) times[f.startsWith('/') ? f.slice(process.cwd().length + 1) : f] = Math.round(ms);
  } catch {
    /* no times from a run that did not finish */
  }
  return r.status ?? 1;
}

const argv = process.argv.slice(2);
const roots = argv.filter((a, i) => !a.startsWith('-') && argv[i - 1] !== '--test-concurrency');
const all = (roots.length ? roots : ['test']).flatMap((r) => (r.endsWith('.ts') ? [r] : collect(r, [])));
// *.long.test.ts (several minutes of simulated runs) run only when named or with --long: `npm run test:agreement`.
const long = argv.includes('--long');
const files = all.filter((f) => long || !f.endsWith('.long.test.ts') || roots.includes(f));
for (const f of all.filter((x) => !files.includes(x))) console.log(`not run by this command: ${f} (a long test: ${f.includes('strategies') ? 'npm run test:strategies' : 'npm run test:agreement'})`);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = concurrencyOf(argv);
const known = readTimes();
const ordered = [...files].sort((a, b) => (known[b] ?? Infinity) - (known[a] ?? Infinity));
mkdirSync('test-artifacts', { recursive: true });
const t0 = Date.now();
const times = { ...known };
const status = runFiles(ordered, concurrency, times);
writeFileSync(TIMES, `${JSON.stringify(times, null, 1)}\n`);
console.log(`\nrun-tests: ${files.length} files, up to ${concurrency} at a time, in ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
process.exit(status);
