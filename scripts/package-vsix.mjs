// Packages the built extension (dist/ from `npm run build`) into dist-vsix/autobench.vsix with @vscode/vsce and checks
// that what the extension needs at run time is inside. tools/vscode-host/run-tests.js --vsix runs the unpacked package.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { listZip } from '../tools/vscode-host/unzip.js';

const out = 'dist-vsix/autobench.vsix';
// Files the manifest points at (main, the server module, schemas the yamlValidation contribution names), the run worker main forks,
// the server's predict worker thread, the load client's worker threads, the built-in prompt set runs read (datasets/, beside dist/), and the docs pages diagnostics and hovers link to (beside dist/, as the server looks).
const required = ['package.json', 'dist/extension.js', 'dist/run-worker.js', 'dist/server.js', 'dist/server-predict-worker.js', 'dist/load-worker.js', 'dist/cli.js', 'schemas/cookbook-config.schema.json', 'datasets/builtin-text.jsonl', 'docs/sla.md'];

for (const f of ['dist/extension.js', 'dist/run-worker.js', 'dist/server.js']) {
  if (!existsSync(f)) {
    console.error(`package-vsix: ${f} is missing; run npm run build first`);
    process.exit(1);
  }
}
rmSync('dist-vsix', { recursive: true, force: true });
mkdirSync('dist-vsix');
// The bundles carry their dependencies (esbuild), so no node_modules go into the package; .vscodeignore is an allow-list.
// The README links to docs/ by relative path; with no public repository there is nothing to rewrite them to, so they stay as they are.
const args = ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '-o', out];
if (!['LICENSE', 'LICENSE.md', 'LICENSE.txt'].some((f) => existsSync(f))) args.push('--skip-license');
const r = spawnSync(process.execPath, [join('node_modules', '@vscode', 'vsce', 'vsce'), ...args], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (r.status !== 0) {
  process.stdout.write(r.stdout ?? '');
  console.error(`package-vsix: vsce exited ${r.status}`);
  process.exit(1);
}
const names = listZip(out);
const missing = required.filter((f) => !names.includes(`extension/${f}`));
if (missing.length) {
  console.error(`package-vsix: ${out} lacks ${missing.join(', ')}`);
  process.exit(1);
}
const bytes = statSync(out).size;
console.log(`package-vsix: ${out} ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes), ${names.length} files`);
