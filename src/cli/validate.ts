// `autobench validate`: a drop-in for the playbook's validate_cookbook_configs.py, with --json and located warnings.
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { checkConfigText } from '../core/config/check';
import { collectConfigFiles } from '../core/config/files';
import { fileReport, type FileReport } from '../core/config/report';
import { loadSnapshotFlags, type IgnoredCapture, type LoadedSnapshots } from '../core/config/snapshot-flags';
import type { SnapshotFlags } from '../core/config/known-flags';
import { styleFor } from './colors';
import { parseCommand } from './args';
import { UsageError } from './errors';

export const VALIDATE_HELP = `usage: autobench validate PATH... [--help-dir DIR] [--print-commands] [--json]
                          [--plan] [--format plain|gcc] [--quiet]

Check cookbook configs without starting a server: the playbook's rules, the
JSON Schema, and the server flags each framework's CLI accepts.

PATH              a config file, or a folder searched recursively for *.yaml / *.yml

options:
  --help-dir DIR   check flags against the captured --help texts in DIR and
                   its sub-folders (*.txt named sglang*launch*, vllm*serve*,
                   trtllm*serve*, tokenspeed*serve*); frameworks without a
                   snapshot there, or with only empty captures, use the
                   built-in table
  --print-commands for each config without errors, print '# <file> <framework>'
                   and the baseline command of each enabled framework
  --json           print one JSON array: per file its errors, warnings and every
                   bounded candidate command of each enabled framework (a P/D
                   unit: each process's command on its own line, router last)
  --plan           read the files as runtime plans (top-level sla, no
                   schema_version or server_command)
  --format gcc     print every finding as FILE:LINE:COL: SEVERITY: MESSAGE [code]
  --quiet          do not print warnings
  -h, --help       show this help

Errors print as '<path>: <error>' on stdout, exactly as the playbook's script
prints them; warnings (our extra checks) go to stderr with their line and never
change the exit status.

exit status: 0 no errors, 1 a config has errors, 2 bad arguments`;

export interface CliIO {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

function ignoredLine(c: IgnoredCapture, loaded: LoadedSnapshots): string {
  const what = c.why === 'empty' ? 'is empty' : 'names no --option';
  const then = loaded.flags[c.framework] ? `${c.framework} flags come from the other captures` : `${c.framework} flags are checked against the built-in table`;
  return `${c.path}: the captured --help ${what} (a failed capture?); ignored, so ${then}; capture it again`;
}

/** The snapshots of a `--help-dir` folder (searched recursively); what was left out goes to stderr as warnings unless `quiet`. */
function loadHelpDir(helpDir: string, io: CliIO, quiet: boolean): SnapshotFlags {
  let isDir = false;
  try {
    isDir = statSync(helpDir).isDirectory();
  } catch {
    /* reported below */
  }
  if (!isDir) throw new UsageError(`--help-dir ${helpDir}: no such directory; point it at the folder of captured --help texts`);
  const loaded = loadSnapshotFlags(helpDir);
  if (quiet) return loaded.flags;
  const warn = styleFor(io.err).yellow('warning');
  for (const c of loaded.ignored) io.err.write(`${warn}: ${ignoredLine(c, loaded)}\n`);
  if (loaded.missing.length === 4) {
    io.err.write(
      `${warn}: --help-dir ${helpDir} holds no server snapshot (names like sglang_launch_server.txt, vllm_serve_all.txt, trtllm_serve.txt, tokenspeed_serve.txt, in it or a folder below); flags are checked against the built-in table\n`,
    );
  }
  return loaded.flags;
}

export function runValidate(argv: string[], io: CliIO): number {
  const parsed = parseCommand(
    argv,
    {
      'help-dir': { type: 'string' },
      'print-commands': { type: 'boolean' },
      json: { type: 'boolean' },
      plan: { type: 'boolean' },
      format: { type: 'string' },
      quiet: { type: 'boolean' },
    },
    VALIDATE_HELP,
    io.out,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError(`validate needs at least one PATH\n\n${VALIDATE_HELP}`);
  const format = values.format ?? 'plain';
  if (format !== 'plain' && format !== 'gcc') throw new UsageError(`--format must be plain or gcc, got '${format}'`);

  const errStyle = styleFor(io.err);
  const helpDir = values['help-dir'];
  const snapshots = helpDir === undefined ? undefined : loadHelpDir(helpDir, io, values.quiet === true);

  const { files, problems } = collectConfigFiles(positionals);
  let failed = problems.length > 0;
  for (const p of problems) io.out.write(`${p.path}: ${p.message}\n`);

  const reports: FileReport[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      failed = true;
      const msg = `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
      reports.push({ file, errors: [{ severity: 'error', code: 'unreadable', message: msg, path: '', line: 1, column: 1, endLine: 1, endColumn: 1 }], warnings: [], candidates: {} });
      if (!values.json) io.out.write(`${file}: ${msg}\n`);
      continue;
    }
    const result = checkConfigText(text, { kind: values.plan ? 'plan' : 'cookbook', ...(snapshots ? { snapshots } : {}) });
    const report = fileReport(file, text, result);
    reports.push(report);
    if (report.errors.length > 0) failed = true;
    if (values.json) continue;
    if (format === 'gcc') {
      for (const f of [...report.errors, ...report.warnings]) {
        if (values.quiet && f.severity !== 'error') continue;
        io.out.write(`${file}:${f.line}:${f.column}: ${f.severity}: ${f.message} [${f.code}]\n`);
      }
    } else {
      for (const e of report.errors) io.out.write(`${file}: ${e.message}\n`);
      if (!values.quiet) {
        for (const w of report.warnings) {
          io.err.write(`${errStyle.dim(`${file}:${w.line}:${w.column}:`)} ${errStyle.yellow('warning')}: ${w.message} ${errStyle.dim(`[${w.code}]`)}\n`);
        }
      }
    }
    if (values['print-commands'] && report.errors.length === 0) {
      for (const plan of result.candidateLists) {
        const baseline = plan.candidates[0];
        if (baseline) io.out.write(`# ${basename(file)} ${plan.framework}\n${baseline.command}\n`);
      }
    }
  }
  if (values.json) io.out.write(`${JSON.stringify(reports, null, 2)}\n`);
  return failed ? 1 : 0;
}
