// Entry of dist/sim.js, which the shims in bin/sim run: `node dist/sim.js <program> [args...]`.
import { runShim } from './shim';

if (require.main === module) {
  const [program = '', ...args] = process.argv.slice(2);
  runShim(program, args, { out: process.stdout, err: process.stderr }).then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (e: unknown) => {
      process.stderr.write(`autobench-sim: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exit(70);
    },
  );
}
