// `autobench sim`: run the simulated serving engine as a given framework, run a framework shim, list profiles.
import { frameworkFromName } from '../sim/fw';
import { GPUS, MODELS } from '../sim/profiles';
import { SIM_OPTIONS_HELP } from '../sim/options';
import { serveFromCli } from '../sim/cli-serve';
import { SHIM_NAMES, runShim } from '../sim/shim';
import type { CliIO } from './validate';

export const SIM_HELP = `usage: autobench sim serve --framework FW [FRAMEWORK FLAGS...] [--sim-* OPTIONS]
       autobench sim shim PROGRAM [ARGS...]
       autobench sim profiles

Run the built-in SIMULATED serving engine: the framework's HTTP API and CLI
behaviour on a modelled GPU. Nothing it measures is a GPU result; every
response carries the header 'x-autobench-simulated: true'.

  serve      start a server that takes FW's own server flags (FW: sglang, vllm,
             tensorrt_llm, tokenspeed); e.g.
               autobench sim serve --framework vllm Qwen/Qwen3-8B --port 0
             '--help' after the framework shows that framework's flags
  shim       run a framework command line as the shims in bin/sim do; PROGRAM is
             one of: ${SHIM_NAMES.join(', ')}
  profiles   list the GPU and model profiles the engine is priced with

${SIM_OPTIONS_HELP}

Put bin/sim on PATH to get 'vllm', 'sglang', 'trtllm-serve', 'tokenspeed',
'ts' and 'python -m sglang.launch_server' that start this engine.`;

function profiles(io: CliIO): number {
  const gib = (b: number): string => (b / 1024 ** 3).toFixed(1);
  io.out.write('GPU profiles (dense tensor FLOP/s, HBM bandwidth):\n');
  for (const g of GPUS) {
    io.out.write(`  ${g.name.padEnd(10)} ${gib(g.memBytes).padStart(6)} GiB  ${(g.bandwidth / 1e12).toFixed(2)} TB/s  bf16 ${(g.flopsBf16 / 1e12).toFixed(0)} TFLOP/s  fp8 ${(g.flopsFp8 / 1e12).toFixed(0)} TFLOP/s\n`);
  }
  io.out.write('\nModel profiles (total/active parameters, KV bytes per token at BF16, context):\n');
  for (const m of MODELS) {
    const names = [m.id, ...(m.aliases ?? [])].join(', ');
    io.out.write(`  ${names}\n      ${m.totalParamsB}B/${m.activeParamsB}B  ${m.bytesPerParam} B/param  KV ${m.kvBytesPerToken} B/token  ctx ${m.contextLength}\n`);
  }
  io.out.write('\nA quantized checkpoint of a listed model (a name ending -FP8, -FP8-dynamic, -NVFP4, -AWQ, -GPTQ-Int4, -W8A8, ...) gets\n');
  io.out.write("its base model's shapes at that size per parameter; a local folder with a config.json gets the shapes it states;\n");
  io.out.write('other names get shapes ESTIMATED from sizes in the name (70B, A3B, FP8), and say so.\n');
  return 0;
}

export async function runSim(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case undefined:
    case '-h':
    case '--help':
      io.out.write(`${SIM_HELP}\n`);
      return sub === undefined ? 2 : 0;
    case 'profiles':
      return profiles(io);
    case 'shim': {
      const [program, ...args] = rest;
      if (!program) {
        io.err.write(`autobench sim shim: which program? (${SHIM_NAMES.join(', ')})\n`);
        return 2;
      }
      return runShim(program, args, io);
    }
    case 'serve': {
      let fwName: string | undefined;
      const args: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i] as string;
        if (a === '--framework') fwName = rest[++i];
        else if (a.startsWith('--framework=')) fwName = a.slice('--framework='.length);
        else args.push(a);
      }
      const fw = fwName ? frameworkFromName(fwName) : undefined;
      if (!fw && (args.includes('--help') || args.includes('-h'))) {
        io.out.write(`${SIM_HELP}\n`);
        return 0;
      }
      if (!fw) {
        io.err.write(`autobench sim serve: --framework must be one of sglang, vllm, tensorrt_llm, tokenspeed${fwName ? ` (got '${fwName}')` : ''}\n`);
        return 2;
      }
      return serveFromCli(fw, fw === 'sglang' ? 'launch_server' : undefined, args, io);
    }
    default:
      io.err.write(`autobench sim: unknown subcommand '${sub}'\n\n${SIM_HELP}\n`);
      return 2;
  }
}
