// Bundles the VS Code integration suites (test/vscode/suite, test/vscode/restricted) into out/vscode-*/index.js, outside
// the packaged extension: the host runner passes that folder as extensionTestsPath.
import { build } from 'esbuild';

// The Restricted Mode suite (test/vscode/restricted) goes to out/vscode-restricted: a second VS Code session runs it.
for (const [entry, outfile] of [['test/vscode/suite/index.ts', 'out/vscode-suite/index.js'], ['test/vscode/restricted/index.ts', 'out/vscode-restricted/index.js']]) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode'],
    logLevel: 'warning',
    legalComments: 'none',
  });
}
