// The run's report from its rows.jsonl and plan: summary.md, summary.csv and the self-contained summary.html, via the results module.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifest } from '../core/results/manifest';
import { buildReport } from '../core/results/report';
import type { ReportModel } from '../core/results/report-model';
import { renderReportCsv, renderReportMarkdown } from '../core/results/report-write';
import { readRows, validateRows } from '../core/results/rows';
import { createNonce } from '../webview/nonce';
import { standaloneReportHtml, type InlineAssets } from '../webview/panel-html';
import type { RunDir } from './artifacts';
import type { RunSummaryFiles } from './types';

/** dist/webview/summary.{js,css}: beside the bundled CLI or extension, or built in a source checkout. */
export function panelAssets(): InlineAssets | undefined {
  for (const d of [join(__dirname, 'webview'), join(__dirname, '..', 'webview'), join(__dirname, '..', '..', 'dist', 'webview')]) {
    const js = join(d, 'summary.js');
    const css = join(d, 'summary.css');
    if (existsSync(js) && existsSync(css)) return { script: readFileSync(js, 'utf8'), style: readFileSync(css, 'utf8') };
  }
  return undefined;
}

export interface SummaryInput {
  dir: RunDir;
  planText: string;
  runId: string;
  /** Versions captured at preflight, over what the plan's version_manifest says. */
  versions: Record<string, { packageVersion?: string; containerImage?: string; serverHelp?: string }>;
  /** What the rows call the GPU (a simulated run's modelled profile), over the plan's gpu_model. */
  gpuModel?: string;
}

export function buildRunReport(i: SummaryInput): ReportModel {
  const text = existsSync(i.dir.rowsFile) ? readFileSync(i.dir.rowsFile, 'utf8') : '';
  const read = readRows(text, 'rows.jsonl');
  if (!read.ok) throw new Error(read.message);
  // The scrubbed plan: whatever the report quotes from it is as redacted as the rows.
  const manifest = parseManifest(i.dir.scrub(i.planText), 'plan.yaml');
  manifest.runId = i.runId;
  manifest.outputDir = i.dir.root;
  if (i.gpuModel) manifest.gpuModel = i.gpuModel;
  for (const [fw, v] of Object.entries(i.versions)) manifest.versions[fw] = { ...manifest.versions[fw], ...v };
  return buildReport(read.rows, { rowsFile: 'rows.jsonl', manifestFile: 'plan.yaml', manifest, issues: validateRows(read.rows) });
}

/** Writes the three summaries; the HTML is left out (null) when the panel bundle is not built. */
export function writeSummary(i: SummaryInput): { files: RunSummaryFiles; model: ReportModel } {
  const model = buildRunReport(i);
  const markdown = i.dir.writeText('summary.md', renderReportMarkdown(model));
  const csv = i.dir.writeText('summary.csv', renderReportCsv(model));
  const assets = panelAssets();
  const html = assets ? i.dir.writeTextRaw('summary.html', standaloneReportHtml(model, assets, createNonce())) : null;
  return { files: { markdown, csv, html }, model };
}
