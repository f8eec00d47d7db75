// What the live run panel shows, kept in the extension host: run events -> trial rows and Slurm jobs as plain text, replayed when the page reloads. vscode-free, so tests feed it events.
import type { RunEvent } from '../runner';
import type { LiveJob, LiveRow, LiveUpdate } from '../webview/live-page';

const num = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/** States in which a job's reason would be stale: it is running or ended normally. */
const NO_REASON = new Set(['RUNNING', 'CONFIGURING', 'COMPLETING', 'COMPLETED']);

function trialLabel(e: { framework: string; candidateId: string; scenario: string; mode: string; rate: number | 'inf'; concurrency: number | null; round: number }): string {
  const rate = e.rate === 'inf' ? 'max rate' : `${num(e.rate, 2)} req/s offered`;
  const conc = e.concurrency === null ? '' : `, concurrency ${e.concurrency}`;
  const round = e.mode === 'search' ? ` (search round ${e.round})` : '';
  return `${e.framework} ${e.candidateId} · ${e.scenario} @ ${rate}${conc}${round}`;
}

export class LiveState {
  private header = '';
  private outcome: Extract<LiveUpdate, { type: 'outcome' }> | undefined;
  private readonly rows = new Map<string, LiveRow>();
  private readonly jobs = new Map<string, LiveJob>();

  /** Everything the page shows, in the order it was first shown: what a freshly loaded page is sent. */
  snapshot(): LiveUpdate[] {
    return [{ type: 'header', text: this.header }, ...(this.outcome ? [this.outcome] : []), ...[...this.jobs.values()].map((job) => ({ type: 'job' as const, job })), ...[...this.rows.values()].map((row) => ({ type: 'row' as const, row }))];
  }

  setHeader(text: string): LiveUpdate {
    this.header = text;
    return { type: 'header', text };
  }

  /** The run's outcome once it ended, in the notification's words. */
  setOutcome(text: string, level: 'info' | 'warning'): LiveUpdate {
    this.outcome = { type: 'outcome', text, level };
    return this.outcome;
  }

  /** The update one event makes, or undefined when it changes nothing the panel shows. */
  apply(e: RunEvent): LiveUpdate | undefined {
    switch (e.type) {
      case 'trial-start':
        return this.row(e.key, { trial: trialLabel(e), status: 'running' });
      case 'trial-progress':
        return this.row(e.key, {
          trial: trialLabel(e),
          status: `running ${e.completed}/${e.total}${e.failed ? `, ${e.failed} failed` : ''}`,
          reqPerS: num(e.requestsPerS, 2),
          tokPerS: num(e.outputTokensPerS, 0),
          ttft: num(e.ttftMsP50, 1),
          tpot: num(e.tpotMsP50, 2),
        });
      case 'trial-end': {
        const status = e.status === 'ok' && !e.slaPassed ? 'sla-failing' : e.status;
        const why = e.reasons.length ? ` (${e.reasons.join('; ')})` : '';
        return this.row(e.key, { trial: trialLabel(e), status: `${status}${e.resumed ? ' (resumed)' : ''}${why}`, reqPerS: num(e.requestThroughput, 2), ttft: num(e.p50TtftMs, 1), tpot: num(e.p50TpotMs, 2) });
      }
      case 'candidate-end':
        if (e.status === 'done' || e.status === 'ok') return undefined;
        return this.row(`${e.framework}/${e.candidateId}/server`, { trial: `${e.framework} ${e.candidateId} · server`, status: `${e.status}${e.reason ? ` (${e.reason})` : ''}` });
      case 'job':
        return this.job(e);
      default:
        return undefined;
    }
  }

  private row(key: string, patch: Partial<LiveRow>): LiveUpdate {
    const row: LiveRow = { ...(this.rows.get(key) ?? { key, trial: '', status: '', reqPerS: '–', tokPerS: '–', ttft: '–', tpot: '–' }), ...patch };
    this.rows.set(key, row);
    return { type: 'row', row };
  }

  private job(e: Extract<RunEvent, { type: 'job' }>): LiveUpdate {
    const prev = this.jobs.get(e.jobId);
    const job: LiveJob = {
      key: e.jobId,
      candidate: `${e.framework} ${e.candidateId}`,
      purpose: e.purpose,
      jobId: e.jobId,
      state: e.state,
      node: e.node ?? prev?.node ?? '–',
      reason: NO_REASON.has(e.state) ? '' : (e.reason ?? ''),
    };
    this.jobs.set(e.jobId, job);
    return { type: 'job', job };
  }
}
