import { build } from 'esbuild';
await build({ bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', entryPoints: [process.argv[2]], outfile: process.argv[3] });
