// `autobench report ROWS.jsonl`: the full report (workload, SLA, versions, winners' commands, reasons,
// caveats, profiler handoff) as Markdown, CSV and a self-contained HTML summary panel.
import { readFileSync } from 'node:fs';
import { parseRunFacts, type RunFacts } from '../core/results/run-facts';
import { buildReport } from '../core/results/report';
import { renderReportCsv, renderReportMarkdown } from '../core/results/report-write';
import { readRows, validateRows } from '../core/results/rows';
import { createNonce } from '../webview/nonce';
import { standaloneReportHtml, type InlineAssets } from '../webview/panel-html';
import { findPanelAssets } from '../webview/report-page';
import { styleFor } from './colors';
import { pythonPathStr } from './compare';
import { parseCommand, usageLines } from './args';
import { EnvironmentError, UsageError, errnoText } from './errors';
import { checkOutputFile, writeOutputFile } from './output-paths';
import type { CliIO } from './validate';

export const REPORT_HELP = `usage: autobench report ROWS.jsonl [--manifest PLAN] [--md FILE] [--csv FILE]
                        [--html FILE] [--quiet]

The full benchmark report: workload and SLA, hardware and versions, the best
command per framework and scenario, one cross-framework table, the winners'
exact launch and benchmark commands, raw vs SLA-passing throughput, one line
per candidate and scenario not selected (the rate it passed up to, the first
rate that failed, why, and a next step for that reason), caveats, and the
profiler handoff when SGLang does not win. SLA verdicts are recomputed from
the metrics.

options:
  --manifest PLAN  the run plan or cookbook config (YAML or JSON) the rows came
                   from: SLA, scenario lengths, versions and images, framework
                   set, search budget; optional keys run_id, output_dir and
                   substitutions: [{framework, from, to, reason}]
  --md FILE        write the report as Markdown
  --csv FILE       write every row with its verdict, reasons and next step
  --html FILE      write the summary panel as one self-contained HTML file
  --quiet          do not print schema warnings
  -h, --help       show this help

With no --md/--csv/--html the Markdown goes to stdout.

Output paths are checked writable before the rows are read.

exit status: 0 written, 1 a row or file could not be read or written,
2 bad arguments (an output path that is a folder included)`;

/** The built panel bundle, or a clear error when it is missing. */
export function loadPanelAssets(): InlineAssets {
  const assets = findPanelAssets();
  if (!assets) throw new EnvironmentError('the summary panel bundle (dist/webview/summary.js) is missing; run npm run build');
  return assets;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new EnvironmentError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errnoText(e)}`);
  }
}

/** Every output path, checked writable before the rows are read (and the panel bundle, when HTML is asked for). */
function checkOutputs(values: { md?: string; csv?: string; html?: string }): InlineAssets | undefined {
  for (const flag of ['md', 'csv', 'html'] as const) {
    const path = values[flag];
    if (path !== undefined) checkOutputFile(path, `--${flag}`);
  }
  return values.html !== undefined ? loadPanelAssets() : undefined;
}

const MAX_WARNINGS = 20;

export function runReport(argv: string[], io: CliIO): number {
  const parsed = parseCommand(
    argv,
    {
      manifest: { type: 'string' },
      md: { type: 'string' },
      csv: { type: 'string' },
      html: { type: 'string' },
      quiet: { type: 'boolean' },
    },
    REPORT_HELP,
    io.out,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`report needs exactly one ROWS.jsonl\n\n${usageLines(REPORT_HELP)}`);
  const rowsFile = positionals[0] as string;
  const assets = checkOutputs(values);
  const read = readRows(readText(rowsFile, 'rows'), pythonPathStr(rowsFile));
  if (!read.ok) {
    io.err.write(`${read.message}\n`);
    return 1;
  }
  const issues = validateRows(read.rows);
  const errStyle = styleFor(io.err);
  if (!values.quiet) {
    for (const issue of issues.slice(0, MAX_WARNINGS)) io.err.write(`${errStyle.dim(`${rowsFile}:${issue.line}:`)} ${errStyle.yellow('warning')}: ${issue.message}\n`);
    if (issues.length > MAX_WARNINGS) io.err.write(`${errStyle.dim(`${rowsFile}:`)} ${issues.length - MAX_WARNINGS} more schema warnings (all of them are listed in the report)\n`);
  }
  let manifest: RunFacts | undefined;
  if (values.manifest !== undefined) {
    manifest = parseRunFacts(readText(values.manifest, 'manifest'), values.manifest);
    for (const p of manifest.problems) io.err.write(`${errStyle.yellow('warning')}: ${p}\n`);
  }
  const model = buildReport(read.rows, {
    rowsFile,
    ...(values.manifest !== undefined ? { manifestFile: values.manifest } : {}),
    ...(manifest ? { runFacts: manifest } : {}),
    issues,
  });
  const wrote = values.md !== undefined || values.csv !== undefined || values.html !== undefined;
  if (values.html !== undefined && assets) writeOutputFile(values.html, standaloneReportHtml(model, assets, createNonce()), '--html');
  if (values.md !== undefined) writeOutputFile(values.md, renderReportMarkdown(model), '--md');
  if (values.csv !== undefined) writeOutputFile(values.csv, renderReportCsv(model), '--csv');
  if (!wrote) io.out.write(renderReportMarkdown(model));
  return 0;
}
