// Entry of dist/sim.js, which the shims in bin/sim run: `node dist/sim.js <program> [args...]`.
import { runShim } from './shim';

if (require.main === module) {
  const [program = '', ...args] = process.argv.slice(2);
  runShim(program, args, { out: process.stdout, err: process.stderr }).then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (e: unknown) => {
      // A bug of ours: one line; the stack only with AUTOBENCH_DEBUG set.
      process.stderr.write(`autobench-sim: internal error: ${(e as Error)?.message ?? String(e)}\n`);
      if (process.env.AUTOBENCH_DEBUG) process.stderr.write(`${(e as Error)?.stack ?? ''}\n`);
      process.exit(70);
    },
  );
}
