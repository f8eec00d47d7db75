// Shared argument parsing for subcommands: node's parseArgs plus -h/--help, with usage errors that show the command's usage lines.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** The usage lines of a help text (up to its first blank line), as argparse prints them above an error. */
export function usageLines(help: string): string {
  const blank = help.indexOf('\n\n');
  return blank < 0 ? help : help.slice(0, blank);
}

/** parseArgs' message without its advice on positionals starting with '-' (a mistyped option is the usual cause). */
export function parseArgsMessage(e: unknown): string {
  return (e as Error).message.replace(/\. To specify a positional argument starting with a '-'.*$/s, '');
}

/** `--repeats -1`: a negative number after a value option is its value (parseArgs would call it an option). */
function joinNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    if (a.startsWith('--') && options[a.slice(2)]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * Parses `argv` against `options` (positionals allowed). Returns undefined after printing `help`
 * when -h/--help was given; throws a UsageError with the usage lines for a bad option.
 */
export function parseCommand<T extends Options>(argv: string[], options: T, help: string, out: NodeJS.WritableStream) {
  let parsed;
  try {
    const config: { args: string[]; allowPositionals: true; options: T & typeof HELP_OPTION } = { args: joinNegativeValues(argv, options), allowPositionals: true, options: { ...options, ...HELP_OPTION } };
    parsed = parseArgs(config);
  } catch (e) {
    throw new UsageError(`${parseArgsMessage(e)}\n\n${usageLines(help)}\n(-h for every option)`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    out.write(`${help}\n`);
    return undefined;
  }
  return parsed;
}
