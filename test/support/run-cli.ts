// `autobench run`'s command line in tests: parsed into RunOptions as the CLI parses it, and the built CLI spawned.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseCommand } from '../../src/cli/args';
import { RUN_HELP } from '../../src/cli/run';
import { RUN_OPTIONS, optionsFrom } from '../../src/cli/run-args';
import { REPO } from './fixtures';

export const CLI = join(REPO, 'dist', 'cli.js');

/** The command line as `autobench run` parses it, into RunOptions (every value checked). */
export function runOptions(...argv: string[]) {
  const parsed = parseCommand(['plan.yaml', ...argv], RUN_OPTIONS, RUN_HELP, process.stdout);
  assert.ok(parsed);
  return optionsFrom(parsed.values, 'plan.yaml');
}

/** The built CLI with these arguments, from the repository, uncoloured. */
export function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', AUTOBENCH_DEBUG: '' } });
}
