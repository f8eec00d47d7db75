/// <reference lib="dom" />
// Per-scenario charts (uPlot, canvas, no eval): a run's trials against the offered rate (rate-charts.ts); rows
// without an offered rate (single measurements) as scatter charts of request throughput against p50 TTFT and p50
// TPOT, one colour per framework, hollow points for SLA failures, the SLA limit as a dashed vertical line.
import uPlot from 'uplot';
import type { CandidateRow, ReportModel } from '../../core/results/report-model';
import { frameworkColor } from './colors';
import { h, themeColor } from './dom';
import { rateCharts } from './rate-charts';

interface Point {
  x: number;
  y: number;
  series: number;
}

export interface ChartSpec {
  scenario: string;
  metric: 'ttft' | 'tpot';
}

/** Draws one chart into `host`; returns the uPlot instance (or null when no row has both values). */
function scatter(host: HTMLElement, model: ReportModel, rows: CandidateRow[], spec: ChartSpec, width: number): uPlot | null {
  const limit = spec.metric === 'ttft' ? model.slaLimits.ttft : model.slaLimits.tpot;
  const frameworks = model.frameworks.filter((fw) => rows.some((r) => r.framework === fw));
  // Two series per framework: SLA-passing (filled) and failing (hollow).
  const seriesDefs: Array<{ fw: string; pass: boolean }> = [];
  for (const fw of frameworks) {
    seriesDefs.push({ fw, pass: true });
    if (rows.some((r) => r.framework === fw && r.sla === 'fail')) seriesDefs.push({ fw, pass: false });
  }
  const points: Point[] = [];
  for (const r of rows) {
    const x = spec.metric === 'ttft' ? r.ttft : r.tpot;
    if (x === null || r.rps === null) continue;
    const series = seriesDefs.findIndex((s) => s.fw === r.framework && s.pass === (r.sla === 'pass'));
    if (series >= 0) points.push({ x, y: r.rps, series });
  }
  if (points.length === 0) return null;
  points.sort((a, b) => a.x - b.x);
  const xs = points.map((p) => p.x);
  const ys = seriesDefs.map((_, s) => points.map((p) => (p.series === s ? p.y : null)));

  const fg = themeColor('--vscode-foreground', '#cccccc');
  const grid = themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.35)');
  const bg = themeColor('--vscode-editor-background', '#1e1e1e');
  const slaColor = themeColor('--vscode-charts-red', '#f14c4c');
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const label = spec.metric === 'ttft' ? 'p50 TTFT (ms)' : 'p50 TPOT (ms)';

  const opts: uPlot.Options = {
    title: `${spec.scenario}: achieved req/s vs ${label}`,
    width,
    height: 260,
    scales: {
      x: {
        time: false,
        range: (_u, min, max) => {
          const hi = Math.max(max, limit ?? max) * 1.08;
          const lo = Math.min(min, limit ?? min);
          return [Math.max(0, lo - (hi - lo) * 0.05), hi === 0 ? 1 : hi];
        },
      },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.12 : 1] },
    },
    axes: [
      { ...axis, label },
      { ...axis, label: 'achieved req/s' },
    ],
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label },
      ...seriesDefs.map((s) => {
        const color = frameworkColor(s.fw, frameworks.indexOf(s.fw));
        return {
          label: s.pass ? s.fw : `${s.fw} (SLA fail)`,
          stroke: color,
          paths: () => null,
          points: { show: true, size: 8, width: 2, stroke: color, fill: s.pass ? color : bg },
        };
      }),
    ],
    hooks: {
      draw: [
        (u: uPlot) => {
          if (limit === null) return;
          const x = Math.round(u.valToPos(limit, 'x', true));
          const { top, height } = u.bbox;
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = slaColor;
          ctx.lineWidth = 2 * uPlot.pxRatio;
          ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.fillStyle = slaColor;
          ctx.font = `${11 * uPlot.pxRatio}px sans-serif`;
          ctx.fillText(`SLA ${limit} ms`, x + 4 * uPlot.pxRatio, top + 12 * uPlot.pxRatio);
          ctx.restore();
        },
      ],
    },
  };
  return new uPlot(opts, [xs, ...ys] as uPlot.AlignedData, host);
}

/** One figure per scenario with the TTFT and TPOT charts side by side. */
export function renderCharts(container: HTMLElement, model: ReportModel): uPlot[] {
  const plots: uPlot[] = [];
  const width = Math.max(320, Math.min(620, Math.floor((container.clientWidth || 1000) / 2) - 24));
  for (const scenario of model.scenarios) {
    const rows = model.candidates.filter((c) => c.scenario === scenario && c.status === 'ok' && !c.smoke);
    // A run's trials have offered rates: latency and achieved rate against them. Rows without (single measurements) keep the scatter.
    const byRate = h('figure', { class: 'rate-charts', attrs: { 'data-scenario': scenario } });
    byRate.append(h('figcaption', {}, `Scenario ${scenario}: every candidate's trials against the offered rate${model.simulatedRows ? ' (SIMULATED engine)' : ''}; shaded: the verdict's bracket; dashed: the SLA limit, or offered = achieved`));
    const rated = rateCharts(byRate, model, scenario, rows, Math.max(300, Math.min(460, Math.floor((container.clientWidth || 1000) / 3) - 20)));
    if (rated.length > 0) {
      plots.push(...rated);
      container.append(byRate);
      continue;
    }
    const fig = h('figure', { class: 'chart-pair', attrs: { 'data-scenario': scenario } });
    fig.append(h('figcaption', {}, `Scenario ${scenario}: every measured candidate${model.simulatedRows ? ' (simulated rows included, labelled in the tables)' : ''}`));
    let drawn = 0;
    for (const metric of ['ttft', 'tpot'] as const) {
      const slot = h('div', { class: 'chart', attrs: { 'data-metric': metric } });
      fig.append(slot);
      const plot = scatter(slot, model, rows, { scenario, metric }, width);
      if (plot) {
        plots.push(plot);
        drawn++;
      } else {
        slot.append(h('p', { class: 'muted' }, `No row has both req/s and p50 ${metric.toUpperCase()}.`));
      }
    }
    if (drawn > 0 || rows.length > 0) container.append(fig);
  }
  if (plots.length === 0 && container.childElementCount === 0) container.append(h('p', { class: 'muted' }, 'No measured candidates to chart.'));
  return plots;
}
