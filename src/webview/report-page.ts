// The self-contained summary page for a report: finds the built panel bundle and inlines it with a fresh nonce (what `report --html` and a run's summary.html write).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportModel } from '../core/results/report-model';
import { createNonce } from './nonce';
import { standaloneReportHtml, type InlineAssets } from './panel-html';

/** dist/webview/summary.{js,css}: beside the bundled CLI or extension, or built in a source checkout. */
export function findPanelAssets(): InlineAssets | undefined {
  for (const d of [join(__dirname, 'webview'), join(__dirname, '..', 'webview'), join(__dirname, '..', '..', 'dist', 'webview')]) {
    const js = join(d, 'summary.js');
    const css = join(d, 'summary.css');
    if (existsSync(js) && existsSync(css)) return { script: readFileSync(js, 'utf8'), style: readFileSync(css, 'utf8') };
  }
  return undefined;
}

/** The page for a report model, or undefined when the panel bundle is not built. */
export function reportPage(model: ReportModel): string | undefined {
  const assets = findPanelAssets();
  return assets ? standaloneReportHtml(model, assets, createNonce()) : undefined;
}
