// The help texts of the simulated CLIs: each server command's full --help from the flag table, vLLM's
// grouped summary and --help=<keyword> search, and the top-level help of each program.
import type { FrameworkKey } from '../core/frameworks/types';
import type { CliShape } from './cli-args';
import { SIM_FRAMEWORKS, simFlags } from './fw';
import { argparseUsage, renderHelp, wrapText } from './help-text';

export function serverShape(fw: FrameworkKey, invocation?: string): CliShape {
  const shapes = SIM_FRAMEWORKS[fw].shapes;
  const shape = shapes[invocation ?? Object.keys(shapes)[0] ?? 'serve'];
  if (!shape) throw new Error(`no CLI shape '${invocation}' for ${fw}`);
  return shape;
}

/** The full option listing (`vllm serve --help=all`, `python -m sglang.launch_server --help`, ...). */
export function fullHelp(fw: FrameworkKey, invocation?: string): string {
  const sim = SIM_FRAMEWORKS[fw];
  return renderHelp(simFlags(fw), serverShape(fw, invocation), { description: sim.helpDescription, showDefaults: sim.showDefaults });
}

/** vLLM's plain `serve --help`: no flags, only how to list them. */
export function vllmSummaryHelp(): string {
  const shape = serverShape('vllm');
  const pos = shape.positional;
  return [
    argparseUsage(simFlags('vllm'), shape),
    '',
    ...wrapText(SIM_FRAMEWORKS.vllm.helpDescription, 80),
    '',
    'Use --help=all to list every flag, or --help=<keyword> to list the flags whose',
    'name contains the keyword.',
    '',
    'positional arguments:',
    `  ${(pos?.metavar ?? 'model_tag').padEnd(22)}${pos?.help ?? ''}`,
    '',
    'options:',
    '  -h, --help            show this help message and exit',
    '',
  ].join('\n');
}

/** vLLM's `--help=<keyword>`: the flags whose option strings contain the keyword. */
export function vllmSearchHelp(keyword: string): string {
  const k = keyword.toLowerCase().replace(/_/g, '-');
  const hits = simFlags('vllm').filter((f) => [f.key, ...(f.aliases ?? [])].some((n) => n.replace(/_/g, '-').includes(k)));
  if (hits.length === 0) return `No group or parameter matching '${keyword}'\n`;
  const shape = serverShape('vllm');
  const body = renderHelp(hits, { ...shape, positional: undefined }, { description: '', showDefaults: true });
  // Keep only the option lines: the usage and -h entry belong to the full help.
  const lines = body.split('\n');
  const start = lines.findIndex((l) => l.startsWith('  -h, --help'));
  return `Arguments matching '${keyword}':\n${lines.slice(start + 1).join('\n')}`;
}

/** Top-level help of each program (the server is the only subcommand the simulator provides). */
export function programHelp(program: string): string {
  const fw = program === 'trtllm-serve' ? 'tensorrt_llm' : program === 'ts' ? 'tokenspeed' : program;
  const sim = SIM_FRAMEWORKS[fw as FrameworkKey];
  const desc = sim ? `Simulated ${sim.displayName} command line (autobench). Only the server is provided;\nnothing it measures is a GPU result.` : '';
  if (program === 'trtllm-serve') {
    return [
      'Usage: trtllm-serve [OPTIONS] COMMAND [ARGS]...',
      '',
      `  ${desc.replace(/\n/g, '\n  ')}`,
      '',
      'Options:',
      '  --help  Show this message and exit.',
      '',
      'Commands:',
      '  serve  Start the simulated OpenAI API compatible server.',
      '',
    ].join('\n');
  }
  const version = program === 'vllm' ? '[-v] ' : program === 'sglang' ? '' : '[--version] ';
  const vline = program === 'vllm' ? ['  -v, --version  show the version and exit'] : program === 'sglang' ? [] : ['  --version      show the version and exit'];
  return [
    `usage: ${program} [-h] ${version}{serve} ...`,
    '',
    desc,
    '',
    'positional arguments:',
    '  {serve}',
    '    serve        start the simulated OpenAI-compatible server',
    '',
    'options:',
    '  -h, --help     show this help message and exit',
    ...vline,
    '',
  ].join('\n');
}
