// Bundles the three entry points (extension, language server, CLI) with esbuild into dist/.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

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
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['language-server/src/server.ts'], outfile: 'dist/server.js' }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  }),
]);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('watch mode is not supported; run npm run build again');
