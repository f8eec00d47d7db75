/// <reference lib="dom" />
// The summary panel's "Predicted vs measured" section: the table of the report model's predictions section (the
// simulated engine model's SLA capacity beside the measured one) and per scenario the predicted Pareto front as an
// SVG chart (x: output tok/s per GPU, y: per-user tok/s; front points joined, each labelled by its candidate). Built
// with DOM calls only (text nodes and attribute values, SVG presentation attributes: nothing the CSP would block).
import type { PredictedFront, PredictionRow, PredictionsSection } from '../../core/results/report-model';
import { frameworkColor } from './colors';
import { h, themeColor } from './dom';
import { sortableTable, type Column } from './tables';

const SVG = 'http://www.w3.org/2000/svg';
const W = 560;
const H = 300;
const PAD = { left: 56, right: 24, top: 30, bottom: 42 };

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: Array<Node | string>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** A round axis maximum above `max` (1, 2 or 5 × a power of ten). */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].find((m) => m * p >= max) ?? 10) * p;
}

const tick = (v: number): string => (v >= 1000 ? `${Number((v / 1000).toFixed(1))}k` : String(Number(v.toFixed(1))));

/** One scenario's predicted front as an SVG chart, or null when the front has no point. */
export function paretoChart(f: PredictedFront): SVGSVGElement | null {
  if (f.points.length === 0) return null;
  const fg = themeColor('--vscode-foreground', '#cccccc');
  const grid = themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.35)');
  const xMax = niceMax(Math.max(...f.points.map((p) => p.throughputPerGpu)) * 1.05);
  const yMax = niceMax(Math.max(...f.points.map((p) => p.perUserTps)) * 1.05);
  const x = (v: number): number => PAD.left + (v / xMax) * (W - PAD.left - PAD.right);
  const y = (v: number): number => H - PAD.bottom - (v / yMax) * (H - PAD.top - PAD.bottom);
  const root = svg('svg', { class: 'pareto-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': f.title, 'data-scenario': f.scenario });
  root.append(svg('title', {}, f.title), svg('text', { x: W / 2, y: 18, 'text-anchor': 'middle', fill: fg, 'font-size': 13, class: 'pareto-title' }, f.title));
  for (let i = 0; i <= 4; i++) {
    const xv = (xMax * i) / 4;
    const yv = (yMax * i) / 4;
    root.append(
      svg('line', { x1: x(xv), x2: x(xv), y1: y(0), y2: y(yMax), stroke: grid, 'stroke-width': 1 }),
      svg('line', { x1: x(0), x2: x(xMax), y1: y(yv), y2: y(yv), stroke: grid, 'stroke-width': 1 }),
      svg('text', { x: x(xv), y: H - PAD.bottom + 14, 'text-anchor': 'middle', fill: fg, 'font-size': 10 }, tick(xv)),
      svg('text', { x: PAD.left - 6, y: y(yv) + 3, 'text-anchor': 'end', fill: fg, 'font-size': 10 }, tick(yv)),
    );
  }
  root.append(
    svg('text', { x: (PAD.left + W - PAD.right) / 2, y: H - 8, 'text-anchor': 'middle', fill: fg, 'font-size': 11 }, 'output tokens/s per GPU'),
    svg('text', { x: 14, y: (PAD.top + H - PAD.bottom) / 2, 'text-anchor': 'middle', fill: fg, 'font-size': 11, transform: `rotate(-90 14 ${(PAD.top + H - PAD.bottom) / 2})` }, 'per-user tokens/s'),
  );
  const all = [...f.points].sort((a, b) => a.throughputPerGpu - b.throughputPerGpu);
  // A measured view marks its front: only those points are joined and labelled, the rest are drawn faint.
  const marked = all.some((p) => p.onFront !== undefined);
  const pts = marked ? all.filter((p) => p.onFront) : all;
  const fws = [...new Set(all.map((p) => p.framework))];
  if (marked) for (const p of all.filter((q) => !q.onFront)) root.append(marker(p, x, y, frameworkColor(p.framework, fws.indexOf(p.framework)), 0.35));
  root.append(svg('polyline', { class: 'pareto-front', points: pts.map((p) => `${x(p.throughputPerGpu).toFixed(1)},${y(p.perUserTps).toFixed(1)}`).join(' '), fill: 'none', stroke: fg, 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
  for (const p of pts) {
    const color = frameworkColor(p.framework, fws.indexOf(p.framework));
    const label = `${p.framework} ${p.candidate}`;
    const g = svg('g', { class: 'pareto-point', 'data-candidate': label });
    g.append(
      marker(p, x, y, color, 1, `${label}: ${p.throughputPerGpu.toFixed(0)} tok/s per GPU, ${p.perUserTps.toFixed(1)} tok/s per user at ${p.rate.toFixed(2)} req/s (${marked ? 'measured' : 'predicted'})`),
      svg('text', { x: x(p.throughputPerGpu) + 6, y: y(p.perUserTps) - 6, fill: fg, 'font-size': 10, class: 'pareto-label' }, label),
    );
    root.append(g);
  }
  return root;
}

/** A point: a circle, a square for a P/D unit; its tooltip when given. */
function marker(p: PredictedFront['points'][number], x: (v: number) => number, y: (v: number) => number, color: string, opacity: number, tip?: string): SVGElement {
  const kids = tip ? [svg('title', {}, tip)] : [];
  const cx = x(p.throughputPerGpu);
  const cy = y(p.perUserTps);
  return p.unit
    ? svg('rect', { x: cx - 4, y: cy - 4, width: 8, height: 8, fill: color, 'fill-opacity': opacity, class: 'pareto-unit' }, ...kids)
    : svg('circle', { cx, cy, r: 4, fill: color, 'fill-opacity': opacity }, ...kids);
}

function columns(calibrated: boolean): Array<Column<PredictionRow>> {
  return [
    { key: 'scenario', label: 'Scenario', num: false, value: (r) => r.scenario },
    { key: 'framework', label: 'Framework', num: false, value: (r) => r.framework },
    { key: 'candidate', label: 'Candidate', num: false, value: (r) => r.candidate },
    { key: 'predicted', label: 'Predicted req/s', num: true, value: (r) => r.initial, cell: (r) => r.initialText },
    ...(calibrated ? [{ key: 'calibrated', label: 'Calibrated req/s', num: true, value: (r: PredictionRow) => r.calibrated, cell: (r: PredictionRow) => r.calibratedText }] : []),
    { key: 'measured', label: 'Measured req/s', num: true, value: (r) => r.measured, cell: (r) => r.measuredText },
    { key: 'error', label: 'Error', num: true, value: (r) => r.initialError, cell: (r) => r.initialErrorText },
    ...(calibrated ? [{ key: 'calibrated-error', label: 'Calibrated error', num: true, value: (r: PredictionRow) => r.calibratedError, cell: (r: PredictionRow) => r.calibratedErrorText }] : []),
  ];
}

/** The section's children: the note, the table and a chart per scenario with a front; none without predictions. */
export function predictionsContent(p: PredictionsSection | null | undefined): Array<Node | null> | null {
  if (!p) return null;
  const charts = h('div', { id: 'pareto-charts' });
  for (const f of p.fronts) {
    const chart = paretoChart(f);
    if (chart) charts.append(h('figure', { class: 'pareto' }, chart, f.leader ? h('figcaption', {}, `Predicted best: ${f.leader} (model)`) : null));
  }
  return [
    h('p', { id: 'predictions-note', class: 'modelled' }, `Simulated model: the predictions are ${p.note}. Measured: the verdict's SLA capacity. Error: predicted / measured − 1.`),
    p.modelError ? h('p', { id: 'predictions-model-error', class: 'modelled' }, p.modelError) : null,
    sortableTable('predictions-table', 'Predicted vs measured SLA capacity', columns(p.calibrated), p.rows).element,
    charts.childNodes.length ? charts : null,
  ];
}
