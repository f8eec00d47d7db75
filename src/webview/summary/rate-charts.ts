/// <reference lib="dom" />
// Per scenario, what a run's trials say against the OFFERED request rate (the x axis): p50 TTFT and p50 TPOT with
// the SLA limit as a dashed line, and the ACHIEVED request rate against the offered one; one series per candidate,
// the verdict's search bracket shaded, the legend naming each candidate's trial at the hovered rate. uPlot, canvas.
import uPlot from 'uplot';
import type { CandidateRow, ReportModel } from '../../core/results/report-model';
import { h, themeColor } from './dom';
import { frameworkColor } from './colors';

type Metric = 'ttft' | 'tpot' | 'rps';

const LABEL: Record<Metric, string> = { ttft: 'p50 TTFT (ms)', tpot: 'p50 TPOT (ms)', rps: 'achieved req/s' };

interface Series {
  key: string;
  framework: string;
  rows: CandidateRow[];
}

/** The scenario's trials with an offered rate, one series per candidate, in the model's framework order. */
function seriesOf(model: ReportModel, rows: readonly CandidateRow[]): Series[] {
  const by = new Map<string, Series>();
  for (const r of rows) {
    const key = `${r.framework} ${r.candidate}`;
    const s = by.get(key) ?? { key, framework: r.framework, rows: [] };
    s.rows.push(r);
    by.set(key, s);
  }
  return [...by.values()].sort((a, b) => model.frameworks.indexOf(a.framework) - model.frameworks.indexOf(b.framework) || a.key.localeCompare(b.key));
}

const valueOf = (r: CandidateRow, m: Metric): number | null => (m === 'ttft' ? r.ttft : m === 'tpot' ? r.tpot : r.rps);

/** The y of one series at each x: the mean of its trials at that offered rate (repeats share one). */
function aligned(xs: readonly number[], s: Series, m: Metric): Array<number | null> {
  return xs.map((x) => {
    const ys = s.rows.filter((r) => r.offered === x).map((r) => valueOf(r, m)).filter((v): v is number => v !== null);
    return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : null;
  });
}

interface Overlay {
  limit: number | null;
  brackets: Array<{ lo: number; hi: number | null; color: string }>;
  diagonal: boolean;
}

/** The SLA line (horizontal), the diagonal offered = achieved, and the verdict's brackets as shaded bands. */
function drawOverlay(u: uPlot, o: Overlay, slot: HTMLElement): void {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const sla = themeColor('--vscode-charts-red', '#f14c4c');
  const px = uPlot.pxRatio;
  ctx.save();
  for (const b of o.brackets) {
    const x0 = Math.max(left, u.valToPos(b.lo, 'x', true));
    const x1 = b.hi === null ? left + width : Math.min(left + width, u.valToPos(b.hi, 'x', true));
    ctx.globalAlpha = 0.12;
    ctx.fillStyle = b.color;
    ctx.fillRect(x0, top, Math.max(2 * px, x1 - x0), height);
  }
  ctx.globalAlpha = 1;
  ctx.setLineDash([6 * px, 4 * px]);
  ctx.lineWidth = 2 * px;
  if (o.diagonal) {
    const hi = u.scales.x?.max ?? 0;
    ctx.strokeStyle = themeColor('--vscode-descriptionForeground', '#999999');
    ctx.beginPath();
    ctx.moveTo(u.valToPos(0, 'x', true), u.valToPos(0, 'y', true));
    ctx.lineTo(u.valToPos(hi, 'x', true), u.valToPos(hi, 'y', true));
    ctx.stroke();
  }
  if (o.limit !== null) {
    const y = Math.round(u.valToPos(o.limit, 'y', true));
    ctx.strokeStyle = sla;
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
    ctx.fillStyle = sla;
    ctx.font = `${11 * px}px sans-serif`;
    ctx.textAlign = 'right';
    ctx.fillText(`SLA ${o.limit} ms`, left + width - 4 * px, y - 4 * px);
    // Where the line is, in canvas pixels: a test reads the colour there.
    slot.dataset.slaY = String(y);
  }
  ctx.restore();
}

function chart(slot: HTMLElement, xs: number[], series: Series[], m: Metric, o: Overlay, title: string, width: number, styles: Array<{ color: string; dash: number[] }>): uPlot {
  const fg = themeColor('--vscode-foreground', '#cccccc');
  const grid = themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.35)');
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const ys = series.map((s) => aligned(xs, s, m));
  const highest = Math.max(o.limit ?? 0, ...ys.flat().filter((v): v is number => v !== null), m === 'rps' ? Math.max(...xs) : 0);
  // The SLA's neighbourhood is what a reader looks at: latencies far past it are clipped at 3x the limit.
  const top = o.limit !== null ? Math.min(highest, o.limit * 3) : highest;
  const trialAt = (s: Series, x: number | null | undefined) => s.rows.filter((r) => r.offered === x).map((r) => `${r.trialText || 'trial'}${r.sla === 'fail' ? ' (SLA fail)' : ''}`).join(', ');
  const opts: uPlot.Options = {
    title,
    width,
    height: 240,
    scales: { x: { time: false, range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] }, y: { range: () => [0, top > 0 ? top * 1.12 : 1] } },
    axes: [{ ...axis, label: 'offered req/s' }, { ...axis, label: LABEL[m] }],
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'offered req/s' },
      ...series.map((s, i) => ({
        label: s.key,
        stroke: styles[i]?.color,
        dash: styles[i]?.dash,
        width: 2,
        spanGaps: true,
        points: { show: true, size: 7, stroke: styles[i]?.color, fill: styles[i]?.color },
        value: (u: uPlot, v: number | null, _si: number, idx: number | null) => (v === null ? '—' : `${v.toFixed(m === 'tpot' ? 2 : 1)} · ${trialAt(s, idx === null ? null : u.data[0][idx])}`),
      })),
    ],
    hooks: { draw: [(u: uPlot) => drawOverlay(u, o, slot)] },
  };
  return new uPlot(opts, [xs, ...ys] as uPlot.AlignedData, slot);
}

/** Per-candidate strokes: the framework's colour, and a dash pattern for each further candidate of the same framework. */
const DASHES: number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3]];

function seriesStyles(model: ReportModel, series: readonly Series[]): Array<{ color: string; dash: number[] }> {
  const seen = new Map<string, number>();
  return series.map((s) => {
    const n = seen.get(s.framework) ?? 0;
    seen.set(s.framework, n + 1);
    return { color: frameworkColor(s.framework, model.frameworks.indexOf(s.framework)), dash: DASHES[n % DASHES.length] ?? [] };
  });
}

/** The three rate charts of one scenario into `fig`; none when no trial of it has an offered rate. */
export function rateCharts(fig: HTMLElement, model: ReportModel, scenario: string, rows: readonly CandidateRow[], width: number): uPlot[] {
  const trials = rows.filter((r) => r.offered !== null && r.measured);
  if (trials.length === 0) return [];
  const series = seriesOf(model, trials);
  const xs = [...new Set(trials.map((r) => r.offered as number))].sort((a, b) => a - b);
  const styles = seriesStyles(model, series);
  const colors = styles.map((x) => x.color);
  const v = model.verdicts.find((x) => x.scenario === scenario);
  const brackets = (v?.winner ? [v.winner, ...v.ties] : []).map((c) => ({ lo: c.interval[0], hi: c.interval[1], color: colors[series.findIndex((s) => s.key === `${c.framework} ${c.candidate}`)] ?? '#888888' }));
  const plots: uPlot[] = [];
  for (const m of ['ttft', 'tpot', 'rps'] as const) {
    const slot = h('div', { class: 'chart rate-chart', attrs: { 'data-metric': m, 'data-series': String(series.length) } });
    fig.append(slot);
    const limit = m === 'ttft' ? model.slaLimits.ttft : m === 'tpot' ? model.slaLimits.tpot : null;
    if (limit !== null) slot.dataset.sla = String(limit);
    const title = `${scenario}: ${LABEL[m]} vs offered req/s`;
    plots.push(chart(slot, xs, series, m, { limit, brackets, diagonal: m === 'rps' }, title, width, styles));
  }
  return plots;
}
