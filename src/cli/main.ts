// The `autobench` command: dispatches subcommands and turns every failure into a message and an exit code.
import { UsageError } from './errors';
import { runValidate } from './validate';
import { version } from '../../package.json';

const HELP = `usage: autobench <command> [options]

Find the best deployment command for one LLM across SGLang, vLLM, TensorRT-LLM
and TokenSpeed under a latency SLA.

commands:
  validate PATH...   check cookbook configs and print candidate commands

Run 'autobench <command> --help' for a command's options.`;

export function main(argv: string[]): number {
  const io = { out: process.stdout, err: process.stderr };
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.out.write(`${HELP}\n`);
        return cmd === undefined ? 2 : 0;
      case '--version':
      case '-V':
        io.out.write(`autobench ${version}\n`);
        return 0;
      case 'validate':
        return runValidate(rest, io);
      default:
        throw new UsageError(`unknown command '${cmd}'\n\n${HELP}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err.write(`autobench: ${e.message}\n`);
      return e.exitCode;
    }
    // A bug of ours: say so in one line, keep the stack for AUTOBENCH_DEBUG=1.
    io.err.write(`autobench: internal error: ${(e as Error).message ?? String(e)}\n`);
    if (process.env.AUTOBENCH_DEBUG) io.err.write(`${(e as Error).stack ?? ''}\n`);
    return 70;
  }
}

if (require.main === module) {
  const code = main(process.argv.slice(2));
  // Let stdout drain before exiting (large --json output on a pipe).
  process.stdout.write('', () => process.exit(code));
}
