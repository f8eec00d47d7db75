// The run worker: a Node process of its own (dist/run-worker.js, forked by the extension) that runs runPlan, so the load
// client stamps its timestamps on an event loop nothing else uses. It lives beside the extension, not in src/runner,
// because it renders summary.html with the webview's report page and the runner never imports the webview.
import { PlanError, RunDirInUseError, runPlan, type HostKeyPrompt, type RunOptions } from '../runner';
import { reportPage } from '../webview/report-page';
import { isMessage, type FromWorker, type ToWorker, type WorkerFailure, type WorkerStart } from './run-worker-protocol';

function post(m: FromWorker, then?: () => void): void {
  if (!process.connected) return then?.();
  process.send?.(m, undefined, {}, () => then?.());
}

function failureOf(e: unknown): WorkerFailure {
  if (e instanceof PlanError) return { kind: 'plan', message: e.message, problems: e.problems };
  if (e instanceof RunDirInUseError) return { kind: 'run-dir-in-use', message: e.message, dir: e.dir };
  return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
}

/** Serves one run over the IPC channel, then exits. */
function serve(): void {
  const ac = new AbortController();
  const answers = new Map<number, (trust: boolean) => void>();
  let nextId = 1;
  let started = false;

  const askHostKey = (prompt: HostKeyPrompt): Promise<boolean> =>
    new Promise((resolve) => {
      const id = nextId++;
      answers.set(id, resolve);
      post({ type: 'host-key', id, prompt });
    });

  const run = async (m: WorkerStart): Promise<void> => {
    const stored = m.secrets;
    const opts: RunOptions = {
      ...m.options,
      // Only what the extension sent (the values the user approved for this target): never this process's environment.
      secrets: (name) => (Object.prototype.hasOwnProperty.call(stored, name) ? stored[name] : undefined),
      ...(m.hostKeyPrompt ? { hostKeyPrompt: askHostKey } : {}),
      ...(m.renderHtml ? { renderHtml: reportPage } : {}),
    };
    let last: FromWorker;
    try {
      last = { type: 'result', result: await runPlan(opts, { onEvent: (event) => post({ type: 'event', event }), signal: ac.signal }) };
    } catch (e) {
      last = { type: 'failed', failure: failureOf(e) };
    }
    // Exit once the last message is on its way: nothing the run left (keep-alive sockets) may hold the worker.
    const exit = (): never => process.exit(0);
    try {
      post(last, exit);
    } catch (e) {
      post({ type: 'failed', failure: { kind: 'error', message: `the run's result could not be sent: ${failureOf(e).message}` } }, exit);
    }
  };

  process.on('message', (m: unknown) => {
    if (!isMessage<ToWorker>(m)) return;
    if (m.type === 'cancel') ac.abort();
    else if (m.type === 'host-key-answer') {
      answers.get(m.id)?.(m.trust === true);
      answers.delete(m.id);
    } else if (m.type === 'start' && !started) {
      started = true;
      void run(m);
    }
  });
  // The extension host went away: stop the run so its servers are torn down, then end with it.
  process.on('disconnect', () => {
    for (const answer of answers.values()) answer(false);
    answers.clear();
    ac.abort();
    if (!started) process.exit(0);
  });
  post({ type: 'ready' });
}

if (!process.send) {
  console.error('run-worker: start me with child_process.fork (an IPC channel is required)');
  process.exit(2);
}
serve();
