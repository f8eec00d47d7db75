// Bundles the VS Code integration suite (test/vscode/suite) into out/vscode-suite/index.js, outside the packaged
// extension: the host runner passes that folder as extensionTestsPath.
import { build } from 'esbuild';

await build({
  entryPoints: ['test/vscode/suite/index.ts'],
  outfile: 'out/vscode-suite/index.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'inline',
  external: ['vscode'],
  logLevel: 'warning',
  legalComments: 'none',
});
