// The live run panel's page and the messages it takes: one table of trials and, on Slurm runs, one of batch jobs; every cell set as text, under a nonce-only CSP.

/** One trial row as the page shows it: every field is plain text. */
export interface LiveRow {
  key: string;
  trial: string;
  status: string;
  reqPerS: string;
  tokPerS: string;
  ttft: string;
  tpot: string;
}

/** One Slurm job as the page shows it (key: the job id): every field is plain text. */
export interface LiveJob {
  key: string;
  candidate: string;
  purpose: string;
  jobId: string;
  /** Slurm's word: PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, ... */
  state: string;
  node: string;
  /** Why it waits (Resources, Priority, ...) or why it ended; empty while it runs. */
  reason: string;
}

export type LiveUpdate = { type: 'header'; text: string } | { type: 'outcome'; text: string; level: 'info' | 'warning' } | { type: 'row'; row: LiveRow } | { type: 'job'; job: LiveJob };

/** What the host posts: an update numbered so the page's acknowledgement says how far it got. */
export type LiveMessage = LiveUpdate & { seq: number };

/** What the page posts back: `ready` once it listens, `shown` after each update with how many trials and jobs it shows. */
export type LiveAck = { type: 'ready' } | { type: 'shown'; rows: number; jobs: number; seq: number };

const SCRIPT = `
const vscode = acquireVsCodeApi();
const head = document.getElementById('head');
const outcome = document.getElementById('outcome');
const jobsSection = document.getElementById('jobs');
const jobCount = document.getElementById('job-count');
const tables = {
  row: { body: document.getElementById('rows'), items: new Map(), cols: ['trial', 'status', 'reqPerS', 'tokPerS', 'ttft', 'tpot'] },
  job: { body: document.getElementById('job-rows'), items: new Map(), cols: ['candidate', 'purpose', 'jobId', 'state', 'node', 'reason'] },
};
function upsert(t, item) {
  let tr = t.items.get(item.key);
  if (!tr) {
    tr = document.createElement('tr');
    for (const c of t.cols) tr.appendChild(document.createElement('td'));
    t.items.set(item.key, tr);
    t.body.appendChild(tr);
  }
  t.cols.forEach((c, i) => { tr.children[i].textContent = String(item[c] ?? ''); });
  return tr;
}
function countJobs() {
  const by = new Map();
  for (const tr of tables.job.items.values()) by.set(tr.dataset.state, (by.get(tr.dataset.state) || 0) + 1);
  const parts = [...by].map(([s, n]) => n + ' ' + s.toLowerCase());
  jobCount.textContent = tables.job.items.size + ' job' + (tables.job.items.size === 1 ? '' : 's') + ': ' + parts.join(', ');
}
window.addEventListener('message', (e) => {
  const m = e.data;
  if (!m || typeof m !== 'object') return;
  if (m.type === 'header' && typeof m.text === 'string') { head.textContent = m.text; return; }
  if (m.type === 'outcome' && typeof m.text === 'string') { outcome.textContent = m.text; outcome.className = m.level === 'warning' ? 'warning' : 'info'; outcome.hidden = false; return; }
  if (m.type === 'row' && m.row && typeof m.row.key === 'string') {
    const tr = upsert(tables.row, m.row);
    tr.className = String(m.row.status).split(' ')[0].replace(/[^a-z_-]/g, '');
  } else if (m.type === 'job' && m.job && typeof m.job.key === 'string') {
    const tr = upsert(tables.job, m.job);
    tr.dataset.state = String(m.job.state).replace(/[^A-Z_]/g, '') || 'UNKNOWN';
    jobsSection.hidden = false;
    countJobs();
  } else return;
  vscode.postMessage({ type: 'shown', rows: tables.row.items.size, jobs: tables.job.items.size, seq: m.seq });
});
vscode.postMessage({ type: 'ready' });
`;

const STYLE = `
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border); font-variant-numeric: tabular-nums; }
/* A trial (candidate, scenario, rate, round) on one line keeps the rows scannable; the status column wraps instead. */
th, #trials-table td:first-child { white-space: nowrap; }
tr.ok td:nth-child(2) { color: var(--vscode-testing-iconPassed); }
tr.failed td:nth-child(2), tr.oom td:nth-child(2), tr.timeout td:nth-child(2), tr.sla-failing td:nth-child(2) { color: var(--vscode-errorForeground); }
#outcome { font-weight: 600; }
#outcome.warning { color: var(--vscode-editorWarning-foreground); }
#jobs { margin-bottom: 1em; }
#jobs h2 { font-size: 1em; margin: 0.5em 0; }
tr[data-state="PENDING"] td:nth-child(4), tr[data-state="CONFIGURING"] td:nth-child(4) { color: var(--vscode-editorWarning-foreground); }
tr[data-state="RUNNING"] td:nth-child(4), tr[data-state="COMPLETED"] td:nth-child(4) { color: var(--vscode-testing-iconPassed); }
tr[data-state="FAILED"] td:nth-child(4), tr[data-state="CANCELLED"] td:nth-child(4), tr[data-state="TIMEOUT"] td:nth-child(4), tr[data-state="NODE_FAIL"] td:nth-child(4), tr[data-state="OUT_OF_MEMORY"] td:nth-child(4), tr[data-state="BOOT_FAIL"] td:nth-child(4), tr[data-state="PREEMPTED"] td:nth-child(4) { color: var(--vscode-errorForeground); }
`;

/** The page: inline script and style allowed only by this load's nonce; nothing else can run or load. The jobs table stays hidden until a job arrives. */
export function livePageHtml(nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<style nonce="${nonce}">${STYLE}</style>
</head><body>
<p id="head"></p>
<p id="outcome" role="status" hidden></p>
<section id="jobs" hidden>
<h2>Slurm jobs <span id="job-count"></span></h2>
<table id="jobs-table"><thead><tr><th>Candidate</th><th>Purpose</th><th>Job</th><th>State</th><th>Node</th><th>Reason</th></tr></thead><tbody id="job-rows"></tbody></table>
</section>
<table id="trials-table"><thead><tr><th>Trial</th><th>Status</th><th>achieved req/s</th><th>tok/s</th><th>p50 TTFT ms</th><th>p50 TPOT ms</th></tr></thead><tbody id="rows"></tbody></table>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>`;
}
