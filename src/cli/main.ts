// The `autobench` command: dispatches subcommands and turns every failure into a message and an exit code.
import { UsageError } from './errors';
import { runValidate } from './validate';
import { runBench } from './bench';
import { runCompare } from './compare';
import { runReport } from './report';
import { runSim } from './sim';
import { runRun } from './run';
import { runPredict } from './predict';
import { runCalibrate } from './calibrate';
import { runDoctorCommand } from './doctor';
import { version } from '../../package.json';

const HELP = `usage: autobench <command> [options]

Find the best deployment command for one LLM across SGLang, vLLM, TensorRT-LLM
and TokenSpeed under a latency SLA.

commands:
  validate PATH...   check cookbook configs and print candidate commands
  bench              drive a server with a streaming workload (SGLang bench_serving's flags)
  compare            rank result rows into the playbook's Markdown/CSV summary
  report ROWS.jsonl  full report (Markdown, CSV, HTML panel) with reasons and handoff
  sim serve          start the built-in SIMULATED engine as a framework (no GPU needed)
  run PLAN           run the candidates on a target (sim, local, ssh:HOST) and write the report
  predict PATH...    PREDICT each candidate's capacity with the simulated engine model (no server,
                     no GPU; never a measurement)
  calibrate RUN_DIR...  fit the prediction model to finished runs and store the calibration
  doctor [PLAN]      what a first real run on a target would meet (CLIs, help, GPUs, Node,
                     ports, bind address), without loading a model

Run 'autobench <command> --help' for a command's options.`;

export async function main(argv: string[]): Promise<number> {
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
      case 'bench':
        return await runBench(rest, io);
      case 'compare':
        return runCompare(rest, io);
      case 'report':
        return runReport(rest, io);
      case 'sim':
        return await runSim(rest, io);
      case 'run':
        return await runRun(rest, io);
      case 'predict':
        return await runPredict(rest, io);
      case 'calibrate':
        return runCalibrate(rest, io);
      case 'doctor':
        return await runDoctorCommand(rest, io);
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
  // Let stdout drain before exiting (large --json output on a pipe); async commands settle first.
  void main(process.argv.slice(2)).then((code) => process.stdout.write('', () => process.exit(code)));
}
