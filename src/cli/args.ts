// Shared argument parsing for subcommands: node's parseArgs plus -h/--help, with usage errors that show the command's help.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Parses `argv` against `options` (positionals allowed). Returns undefined after printing `help`
 * when -h/--help was given; throws a UsageError carrying `help` for a bad option.
 */
export function parseCommand<T extends Options>(argv: string[], options: T, help: string, out: NodeJS.WritableStream) {
  let parsed;
  try {
    const config: { args: string[]; allowPositionals: true; options: T & typeof HELP_OPTION } = { args: argv, allowPositionals: true, options: { ...options, ...HELP_OPTION } };
    parsed = parseArgs(config);
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${help}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    out.write(`${help}\n`);
    return undefined;
  }
  return parsed;
}
