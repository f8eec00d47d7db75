// Runs every *.test.ts under test/ (or the folders given) with node's test runner through tsx; *.long.test.ts only with --long or when named, and says so.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const all = (roots.length ? roots : ['test']).flatMap((r) => (r.endsWith('.ts') ? [r] : collect(r, [])));
// *.long.test.ts (several minutes of simulated runs) run only when named or with --long: `npm run test:agreement`.
const long = process.argv.includes('--long');
const files = all.filter((f) => long || !f.endsWith('.long.test.ts') || roots.includes(f));
for (const f of all.filter((x) => !files.includes(x))) console.log(`not run by this command: ${f} (a long test: ${f.includes('strategies') ? 'npm run test:strategies' : 'npm run test:agreement'})`);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
