// The help texts of the simulated CLIs: each server command's full --help from the flag table, vLLM's
// grouped summary and --help=<keyword> search, and the top-level help of each program.
import type { FlagSpec, FrameworkKey } from '../core/frameworks/types';
import type { CliShape } from './cli-args';
import { tokenspeedCli, vllmHelpMode, vllmMissingFlags } from './engine-era';
import { SIM_FRAMEWORKS, simFlags } from './fw';
import { argparseUsage, renderHelp, wrapText } from './help-text';

/** The flags a release of the engine has: the built-in table less what that release lacks (engine-era.ts). */
export function versionedFlags(fw: FrameworkKey, version?: string): readonly FlagSpec[] {
  if (fw !== 'vllm' || version === undefined) return simFlags(fw);
  const missing = new Set(vllmMissingFlags(version));
  return simFlags(fw).filter((f) => !missing.has(f.key));
}

export function serverShape(fw: FrameworkKey, invocation?: string): CliShape {
  const shapes = SIM_FRAMEWORKS[fw].shapes;
  const shape = shapes[invocation ?? Object.keys(shapes)[0] ?? 'serve'];
  if (!shape) throw new Error(`no CLI shape '${invocation}' for ${fw}`);
  return shape;
}

/** The full option listing (`vllm serve --help=all`, `python -m sglang.launch_server --help`, ...). */
export function fullHelp(fw: FrameworkKey, invocation?: string, version?: string): string {
  const sim = SIM_FRAMEWORKS[fw];
  return renderHelp(versionedFlags(fw, version), serverShape(fw, invocation), { description: sim.helpDescription, showDefaults: sim.showDefaults });
}

/**
 * `tokenspeed serve --help`: since the smg gateway split (lightseekorg/tokenspeed 188cbb54, #97) the `serve` subparser
 * registers no engine flag, only `--headless` from 57b49061 (#897) (`python/tokenspeed/cli/__main__.py` @f4d8ec6e); before
 * it, the engine's whole ServerArgs list (fixtures/help/tokenspeed/initial-release-205c53c4).
 */
export function tokenspeedServeHelp(version: string): string {
  const cli = tokenspeedCli(version);
  if (!cli.gatewaySplit) return fullHelp('tokenspeed');
  if (!cli.headless) return 'usage: tokenspeed serve [-h]\n\noptions:\n  -h, --help  show this help message and exit\n';
  return [
    'usage: tokenspeed serve [-h] [--headless]',
    '',
    ...wrapText('Simulated TokenSpeed server (autobench): the serving stack (a gateway in front of the engine) by default, or the engine alone with --headless.', 80),
    '',
    'options:',
    '  -h, --help  show this help message and exit',
    '  --headless  Run the engine only, without a frontend (simulated: no HTTP',
    '              server; the other ranks of a multi-node launch).',
    '',
  ].join('\n');
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

/**
 * vLLM's `--help=<keyword>`: the flags whose option strings contain the keyword. 0.9.2-0.10.2 head the list
 * `Parameters matching` (fixtures/help/vllm/v0.10.2/SOURCE.md); `all` is a keyword there too.
 */
export function vllmSearchHelp(keyword: string, version?: string): string {
  const k = keyword.toLowerCase().replace(/_/g, '-');
  const hits = versionedFlags('vllm', version).filter((f) => [f.key, ...(f.aliases ?? [])].some((n) => n.replace(/_/g, '-').includes(k)));
  if (hits.length === 0) return `No group or parameter matching '${keyword}'\n`;
  const shape = serverShape('vllm');
  const body = renderHelp(hits, { ...shape, positional: undefined }, { description: '', showDefaults: true });
  // Keep only the option lines: the usage and -h entry belong to the full help.
  const lines = body.split('\n');
  const start = lines.findIndex((l) => l.startsWith('  -h, --help'));
  const head = version !== undefined && vllmHelpMode(version) === 'search' ? 'Parameters' : 'Arguments';
  return `${head} matching '${keyword}':\n${lines.slice(start + 1).join('\n')}`;
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
  // vLLM has `-v, --version` (vllm/entrypoints/cli/main.py @00a5fdd2); TokenSpeed a `version` subcommand and no option
  // (lightseekorg/tokenspeed python/tokenspeed/cli/__main__.py @f4d8ec6e).
  const tokenspeed = fw === 'tokenspeed';
  const subs = tokenspeed ? '{serve,version}' : '{serve}';
  return [
    `usage: ${program} [-h] ${program === 'vllm' ? '[-v] ' : ''}${subs} ...`,
    '',
    desc,
    '',
    'positional arguments:',
    `  ${subs}`,
    '    serve        start the simulated OpenAI-compatible server',
    ...(tokenspeed ? ['    version      print the version of the engine it stands in for'] : []),
    '',
    'options:',
    '  -h, --help     show this help message and exit',
    ...(program === 'vllm' ? ['  -v, --version  show the version and exit'] : []),
    '',
  ].join('\n');
}
