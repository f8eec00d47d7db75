// Times `autobench compare` on 100,000 generated rows (in process and as the built CLI) and the
// summary panel on 5,000 rows in headless Chromium (time to ready, time to sort). Prints medians.
// Run: node --import tsx bench/compare.ts [--rows N] [--panel-rows N] [--runs N]
// Needs dist/ (npm run build) and, for the panel part, Debian's chromium (or AUTOBENCH_CHROMIUM).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { renderCompareCsv, renderCompareMarkdown } from '../src/core/results/compare';
import { rankRows } from '../src/core/results/rank';
import { readRows } from '../src/core/results/rows';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const ROWS = arg('--rows', 100_000);
const PANEL_ROWS = arg('--panel-rows', 5_000);
const RUNS = arg('--runs', 5);
const REPO = resolve(__dirname, '..');
const CLI = join(REPO, 'dist', 'cli.js');
const CHROMIUM = process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium';

/** Deterministic rows: 4 frameworks x 4 scenarios, a mix of ok, SLA-failing and failed candidates. */
function generateRows(n: number): string {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const fws = ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed'];
  const scenarios: Array<[string, number, number]> = [
    ['chat', 1000, 1000],
    ['summarization', 8000, 1000],
    ['long-prefill', 16000, 256],
    ['agentic', 4000, 2000],
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const fw = fws[i % 4] as string;
    const [sc, inLen, outLen] = scenarios[Math.floor(i / 4) % 4] as [string, number, number];
    const status = rand() < 0.06 ? 'failed' : rand() < 0.02 ? 'oom' : 'ok';
    const rps = Math.round(rand() * 2000) / 100;
    const ttft = Math.round(200 + rand() * 2400);
    const tpot = Math.round((10 + rand() * 90) * 100) / 100;
    const passed = status === 'ok' && ttft <= 2000 && tpot <= 80;
    const row: Record<string, unknown> = {
      framework: fw,
      candidate_id: `c${i}`,
      model: 'Qwen/Qwen3-32B',
      status,
      workload: { scenario: sc, kind: 'random', input_len: inLen, output_len: outLen, num_prompts: 80 },
      sla: { max_p50_ttft_ms: 2000, max_p50_tpot_ms: 80, min_success_rate: 0.99, passed },
      hardware: { gpu_model: 'NVIDIA H100 80GB HBM3', gpu_count: 4 },
      server_command: `${fw} serve Qwen/Qwen3-32B --tp 4 --max-num-seqs ${64 + (i % 8) * 32}`,
      simulated: true,
    };
    if (status === 'ok') row.metrics = { request_throughput: rps, output_token_throughput: rps * outLen, p50_ttft_ms: ttft, p50_tpot_ms: tpot, success_rate: 1.0 };
    else row.failure_reason = status === 'oom' ? 'CUDA out of memory' : 'server exited with code 1';
    out.push(JSON.stringify(row));
  }
  return `${out.join('\n')}\n`;
}

function stats(samples: number[]): { median: number; p90: number; min: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { median: at(0.5), p90: at(0.9), min: s[0] ?? NaN };
}

function time(fn: () => void, runs: number): number[] {
  fn(); // warm the JIT
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

const fmt = (label: string, samples: number[], extra = '') => {
  const s = stats(samples);
  console.log(`${label.padEnd(44)} median ${s.median.toFixed(1).padStart(8)} ms  p90 ${s.p90.toFixed(1).padStart(8)} ms  min ${s.min.toFixed(1).padStart(8)} ms${extra}`);
  return s;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-bench-'));
  try {
    console.log(`node ${process.version}; ${RUNS} runs each; all rows labelled simulated (generated, not measurements)`);
    const text = generateRows(ROWS);
    const input = join(dir, 'rows.jsonl');
    writeFileSync(input, text);
    console.log(`generated ${ROWS} rows, ${(text.length / 1e6).toFixed(1)} MB`);

    const lines = text.split('\n').filter(Boolean);
    const peer = fmt('JSON.parse of every line (peer)', time(() => lines.forEach((l) => JSON.parse(l) as unknown), RUNS));
    const read = fmt('read + Python-exact parse', time(() => readRows(text, input), RUNS));
    const parsed = readRows(text, input);
    if (!parsed.ok) throw new Error(parsed.message);
    const data = parsed.rows.map((r) => r.data);
    fmt('rank (keys for every row)', time(() => rankRows(data), RUNS));
    const ranked = rankRows(data);
    fmt('Markdown summary', time(() => renderCompareMarkdown(data, ranked), RUNS));
    fmt('CSV (all rows, rank order)', time(() => renderCompareCsv(data, ranked), RUNS));
    const all = fmt('compare in process (all of the above)', time(() => {
      const r = readRows(text, input);
      if (!r.ok) throw new Error(r.message);
      const d = r.rows.map((x) => x.data);
      const k = rankRows(d);
      renderCompareMarkdown(d, k);
      renderCompareCsv(d, k);
    }, RUNS), '');
    console.log(`${''.padEnd(44)} ratio to JSON.parse alone: ${(all.median / peer.median).toFixed(2)}x; read alone ${(read.median / peer.median).toFixed(2)}x`);

    if (existsSync(CLI)) {
      const cli: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = process.hrtime.bigint();
        const r = spawnSync(process.execPath, [CLI, 'compare', '--input', input, '--output', join(dir, 's.md'), '--csv', join(dir, 's.csv')], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(r.stderr);
        cli.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      fmt(`autobench compare CLI, ${ROWS} rows (wall)`, cli);
    } else console.log('dist/cli.js missing: run npm run build for the CLI timing');

    if (!existsSync(CHROMIUM)) {
      console.log(`no chromium at ${CHROMIUM}: panel timing skipped`);
      return;
    }
    const panelRows = join(dir, 'panel.jsonl');
    writeFileSync(panelRows, lines.slice(0, PANEL_ROWS).join('\n') + '\n');
    const html = join(dir, 'panel.html');
    const t0 = process.hrtime.bigint();
    const rep = spawnSync(process.execPath, [CLI, 'report', panelRows, '--html', html, '--quiet'], { encoding: 'utf8' });
    if (rep.status !== 0) throw new Error(rep.stderr);
    console.log(`autobench report --html, ${PANEL_ROWS} rows: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms (one run)`);

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const ready: number[] = [];
      const render: number[] = [];
      const sortMs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        const start = Date.now();
        await page.goto(pathToFileURL(html).href);
        await page.waitForSelector('body[data-state="ready"]', { timeout: 60_000 });
        ready.push(Date.now() - start);
        render.push(Number(await page.getAttribute('body', 'data-render-ms')));
        // Sort in the page and time it there, including the layout the new order forces.
        for (const key of ['request_throughput', 'p50_ttft_ms', 'candidate']) {
          const ms = await page.evaluate((k) => {
            const b = document.querySelector<HTMLButtonElement>(`#candidates-table th[data-key="${k}"] button`);
            const t = performance.now();
            b?.click();
            void document.body.offsetHeight;
            return performance.now() - t;
          }, key);
          sortMs.push(ms);
        }
        await page.close();
      }
      fmt(`panel, ${PANEL_ROWS} rows: navigation to ready`, ready);
      fmt(`panel, ${PANEL_ROWS} rows: render (in page)`, render);
      fmt(`panel, ${PANEL_ROWS} rows: sort a column (in page)`, sortMs);
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
