// Bundles the entry points (extension and its run worker, language server, CLI, the on-host load client, simulator, summary panel) with esbuild into dist/.
import { build } from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';

// The bundles read the built-in prompt set (dataset kind builtin-text) from datasets/ beside dist/; the .vsix ships it (.vscodeignore).
if (!existsSync('datasets/builtin-text.jsonl')) throw new Error('build: datasets/builtin-text.jsonl is missing (the builtin-text dataset the bundles read)');

const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  legalComments: 'none',
};

await Promise.all([
  // The extension bundles the runner (ssh2 included): its optional native helpers stay external like the CLI's.
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', 'cpu-features', '*.node'] }),
  // Editor runs execute here, in a process of their own (forked by the extension), so the load client owns its event loop.
  build({ ...common, entryPoints: ['src/extension/run-worker.ts'], outfile: 'dist/run-worker.js', external: ['cpu-features', '*.node'] }),
  build({ ...common, entryPoints: ['language-server/src/server.ts'], outfile: 'dist/server.js' }),
  // The language server predicts open configs in a worker thread running this bundle (beside dist/server.js), never on its event loop.
  build({ ...common, entryPoints: ['language-server/src/predict-worker.ts'], outfile: 'dist/server-predict-worker.js' }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
    // ssh2's optional native helpers: required inside try/catch, so the pure-JS fallback runs when absent.
    external: ['cpu-features', '*.node'],
  }),
  // `autobench predict` predicts files in worker threads running this bundle (beside dist/cli.js).
  build({ ...common, entryPoints: ['src/cli/predict-worker.ts'], outfile: 'dist/predict-worker.js' }),
  // The load client's worker threads (`--workers`), beside every bundle that measures (cli.js, run-worker.js).
  build({ ...common, entryPoints: ['src/client/load-worker-main.ts'], outfile: 'dist/load-worker.js' }),
  // The load client the runner copies to an ssh host and runs next to the server: one file, Node >= 20 built-ins only.
  build({ ...common, entryPoints: ['src/client/host-main.ts'], outfile: 'dist/client-node.js', sourcemap: false, minify: true }),
  // The simulated framework CLIs (bin/sim/*) run this small bundle rather than the whole CLI.
  build({ ...common, entryPoints: ['src/sim/main.ts'], outfile: 'dist/sim.js' }),
  // The summary panel (webview and `report --html`): browser IIFE; its CSS lands beside it.
  build({
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: ['src/webview/summary/main.ts'],
    outfile: 'dist/webview/summary.js',
    minify: true,
    sourcemap: false,
  }),
]);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('watch mode is not supported; run npm run build again');
