// Copies the README's pictures from the VS Code suite's screenshots (test-artifacts/vscode, written by `npm test`'s
// VS Code suites) to docs/images; says which are missing and exits 1 then, so a stale picture is never kept silently.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(repo, 'test-artifacts', 'vscode');
const to = join(repo, 'docs', 'images');
const PICTURES = ['summary-charts-light.png', 'config-lenses.png'];

mkdirSync(to, { recursive: true });
const missing = PICTURES.filter((p) => !existsSync(join(from, p)));
if (missing.length) {
  console.error(`docs:images: ${missing.join(', ')} not in ${from}: run the VS Code suites first (npm test, or npm run test:vscode)`);
  process.exit(1);
}
for (const p of PICTURES) {
  copyFileSync(join(from, p), join(to, p));
  console.log(`docs/images/${p} (${Math.round(statSync(join(to, p)).size / 1024)} KiB, from ${join('test-artifacts', 'vscode', p)})`);
}
