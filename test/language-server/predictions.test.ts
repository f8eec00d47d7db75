// Predictions in the editor, in-process: the lens and hover texts from a prediction's plain data, a stale version's result dropped, and the job running in a worker thread while the server's thread stays free.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId, Worker } from 'node:worker_threads';
import { checkConfigText } from '../../src/core/config/check';
import { hoverAt } from '../../src/core/editor/hover';
import { frameworkErrors, lensesFor } from '../../src/core/editor/outline';
import { predictedLeaders, type EditorPrediction } from '../../src/core/editor/predicted';
import { Analyzer } from '../../language-server/src/analysis';
import { builtWorker, PredictionService, type PredictReply, type PredictRequest, type WorkerLike } from '../../language-server/src/predictions';
import { SnapshotCache } from '../../language-server/src/snapshot-cache';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { REPO } from '../support/fixtures';
import { readRepoFile, spanOf } from '../support/text-at';
import { MODEL_ERROR } from '../../src/predict/model-error';

const DEMO = readRepoFile('configs', 'examples', 'demo.plan.yaml');
const DEMO_PATH = join(REPO, 'configs', 'examples', 'demo.plan.yaml');
const demo = checkConfigText(DEMO);

/** A prediction as the worker sends it (plain data): vLLM's c2 (max_num_seqs=28) leads on chat. */
const PRED: EditorPrediction = {
  scenarios: ['chat', 'summarization'],
  frameworks: [
    {
      framework: 'vllm',
      total: 3,
      candidates: [
        { id: 'baseline', overrides: [], status: 'ok', capacity: { chat: 9.8, summarization: 3 } },
        { id: 'c1', overrides: [['max_num_seqs', '8']], status: 'ok', capacity: { chat: 7.4, summarization: 3.1 } },
        { id: 'c2', overrides: [['max_num_seqs', '28']], status: 'ok', capacity: { chat: 11.2, summarization: 3 } },
      ],
    },
    {
      framework: 'sglang',
      total: 3,
      candidates: [{ id: 'baseline', overrides: [], status: 'ok', capacity: { chat: 0, summarization: 0 } }],
    },
  ],
  complete: false,
  elapsedMs: 1200,
};

const countLens = (lenses: ReturnType<typeof lensesFor>, fw: string) => lenses.find((l) => l.framework === fw && l.command === 'autobench.pickCandidate')?.title;

describe('predictions in code lenses', () => {
  test('without a prediction the count lens is unchanged', () => {
    assert.equal(countLens(lensesFor(demo), 'vllm'), '3 candidates');
    assert.equal(countLens(lensesFor(demo, predictedLeaders(undefined)), 'vllm'), '3 candidates');
  });

  test('with one: the framework\'s predicted leader on the first scenario; a partial one says how many; none meeting the SLA says so', () => {
    const lenses = lensesFor(demo, predictedLeaders(PRED));
    assert.equal(countLens(lenses, 'vllm'), '3 candidates · predicted best c2 ≈ 11.2 req/s chat (model)');
    assert.equal(countLens(lenses, 'sglang'), '3 candidates · predicted: none meets the SLA on chat (model, 1 of 3 predicted)');
    // The other lenses keep their titles (the run lenses count the errors a run of vllm meets, predicted or not).
    const n = frameworkErrors(demo, 'vllm').length;
    const mark = n ? ` (${n} error${n === 1 ? '' : 's'})` : '';
    assert.deepEqual(lenses.filter((l) => l.framework === 'vllm').map((l) => l.title).slice(1), ['Show commands', `Run baseline${mark}`, `Run candidate…${mark}`, `Run all${mark}`]);
  });
});

describe("the model's measured error beside the figures", () => {
  const withError = { ...PRED, modelError: { medianAbsError: 0.2321, points: 1214, measured: '2026-12-07' } };
  test('the lens says the median error, the hover the error with its corpus and date', () => {
    const lenses = lensesFor(demo, predictedLeaders(withError));
    assert.equal(countLens(lenses, 'vllm'), '3 candidates · predicted best c2 ≈ 11.2 req/s chat (model, median error 23%)');
    assert.equal(countLens(lenses, 'sglang'), '3 candidates · predicted: none meets the SLA on chat (model, median error 23%, 1 of 3 predicted)');
    const value = spanOf(DEMO, '28', '  vllm:\n');
    assert.match(hoverAt(demo, value[0] + 1, undefined, withError)?.markdown ?? '', /\n\npredicted \(simulated engine model, uncalibrated; median error 23% on 1214 published GPU points, measured 2026-12-07\): max_num_seqs=28 → chat 11\.2 req\/s/);
  });
});

describe('predictions in hovers', () => {
  const value = spanOf(DEMO, '28', '  vllm:\n');
  test('a search-space value: its predicted effect against the baseline, per scenario', () => {
    const md = hoverAt(demo, value[0] + 1, undefined, PRED)?.markdown ?? '';
    assert.match(md, /^\*\*`--max-num-seqs`\*\*/);
    assert.ok(md.endsWith('\n\npredicted (simulated engine model, uncalibrated): max_num_seqs=28 → chat 11.2 req/s vs baseline 9.8 (+14%), summarization 3.0 req/s vs baseline 3.0 (+0%)'), md);
  });

  test('no prediction cached: nothing about predictions; the key itself: nothing either', () => {
    assert.doesNotMatch(hoverAt(demo, value[0] + 1, undefined)?.markdown ?? '', /predicted/);
    const key = spanOf(DEMO, 'max_num_seqs', '  vllm:\n');
    assert.doesNotMatch(hoverAt(demo, key[0] + 1, undefined, PRED)?.markdown ?? '', /predicted/);
  });

  test('a value no predicted candidate sets (the budget cut it) says so', () => {
    const sg = spanOf(DEMO, '64', '  sglang:\n');
    assert.match(hoverAt(demo, sg[0] + 1, undefined, PRED)?.markdown ?? '', /\n\npredicted \(simulated engine model, uncalibrated\): no predicted candidate sets max_running_requests=64$/);
  });
});

/** A worker that answers only when told to (messages kept in `got`). */
class FakeWorker implements WorkerLike {
  readonly got: PredictRequest[] = [];
  private onMessage: ((m: PredictReply) => void) | undefined;
  postMessage(m: PredictRequest): void {
    this.got.push(m);
  }
  on(event: string, f: (x: never) => void): this {
    if (event === 'message') this.onMessage = f as (m: PredictReply) => void;
    return this;
  }
  terminate(): void {}
  reply(id: number, prediction: EditorPrediction): void {
    this.onMessage?.({ id, threadId: 7, prediction });
  }
}

describe('the prediction service', () => {
  test('a stale version\'s result is dropped and its job cancelled; the latest version\'s is cached and reported', () => {
    const fake = new FakeWorker();
    const results: Array<[string, number]> = [];
    const svc = new PredictionService({ spawn: () => fake, onResult: (uri, v) => results.push([uri, v]) });
    const input = { text: DEMO, path: DEMO_PATH };
    svc.request('file:///a.yaml', 1, input);
    svc.request('file:///a.yaml', 2, input);
    assert.equal(fake.got.length, 1, 'one job at a time');
    const [v1] = fake.got;
    assert.equal(v1!.maxCandidates, 40);
    assert.equal(v1!.deadlineMs, 2000);
    assert.equal(Atomics.load(new Int32Array(v1!.cancel), 0), 1, 'the older job is told to stop');
    fake.reply(v1!.id, PRED);
    assert.equal(svc.get('file:///a.yaml', 1), undefined);
    assert.equal(svc.get('file:///a.yaml', 2), undefined);
    assert.deepEqual(results, []);
    // The newer version was queued and starts once the old one answers.
    assert.equal(fake.got.length, 2);
    fake.reply(fake.got[1]!.id, PRED);
    assert.deepEqual(results, [['file:///a.yaml', 2]]);
    assert.equal(svc.get('file:///a.yaml', 2), PRED);
    assert.equal(svc.get('file:///a.yaml', 3), undefined, 'cached per version');
    // The same version again: cached, no new job.
    svc.request('file:///a.yaml', 2, input);
    assert.equal(fake.got.length, 2);
  });

  test('a closed document\'s result is dropped; no worker: never predicts on this thread', () => {
    const fake = new FakeWorker();
    const results: number[] = [];
    const svc = new PredictionService({ spawn: () => fake, onResult: (_u, v) => results.push(v) });
    svc.request('file:///b.yaml', 4, { text: DEMO, path: DEMO_PATH });
    svc.forget('file:///b.yaml');
    fake.reply(fake.got[0]!.id, PRED);
    assert.deepEqual(results, []);
    assert.equal(svc.get('file:///b.yaml', 4), undefined);
    const none = new PredictionService({ spawn: undefined, onResult: () => assert.fail('no worker, no prediction') });
    none.request('file:///b.yaml', 1, { text: DEMO, path: DEMO_PATH });
    assert.equal(none.busy, false);
  });
});

const WORKER_SOURCE = join(REPO, 'language-server', 'src', 'predict-worker.ts');
/** The built worker when there is one, else the worker's source through tsx. */
const spawn = builtWorker(join(REPO, 'dist')) ?? ((): WorkerLike => new Worker(`require('tsx/cjs'); require(${JSON.stringify(WORKER_SOURCE)});`, { eval: true }));

describe('typing is not blocked', () => {
  test('the demo plan is predicted in a worker thread while the server\'s thread answers lens requests promptly', async () => {
    const uri = pathToFileURL(DEMO_PATH).toString();
    let arrived: (p: EditorPrediction) => void = () => undefined;
    const done = new Promise<EditorPrediction>((resolve) => (arrived = resolve));
    const svc = new PredictionService({ spawn, onResult: (_u, _v, p) => arrived(p) });
    after(() => svc.dispose());
    const analyzer = new Analyzer(new SnapshotCache(), () => DEFAULT_SETTINGS, () => []);
    analyzer.analyze(uri, 1, DEMO);
    svc.request(uri, 1, { text: DEMO, path: DEMO_PATH });
    assert.equal(svc.busy, true);
    // While the job runs: analyse fresh versions and build their lenses (as typing does), and time the event loop.
    let worst = 0;
    let version = 1;
    while (svc.busy) {
      const t0 = performance.now();
      const text = DEMO.replace('num_prompts: 32', `num_prompts: ${32 + version}`);
      lensesFor(analyzer.analyze(uri, ++version, text).result, predictedLeaders(svc.get(uri, version)));
      await new Promise((r) => setImmediate(r));
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    const p = await done;
    assert.ok(version > 2, 'the loop ran while the job did');
    assert.ok(worst < 200, `a lens request took ${worst.toFixed(0)} ms while predicting`);
    assert.notEqual(svc.lastThreadId, undefined);
    assert.notEqual(svc.lastThreadId, threadId, 'predicted on another thread');
    assert.deepEqual(p.scenarios, ['chat', 'summarization']);
    assert.deepEqual(p.frameworks.map((f) => f.framework), ['sglang', 'vllm']);
    const lens = countLens(lensesFor(demo, predictedLeaders(p)), 'vllm') ?? '';
    // The worker's prediction carries the model's measured error on published GPU data (predict/model-error.json).
    assert.deepEqual(p.modelError, { medianAbsError: MODEL_ERROR.median_abs_error, points: MODEL_ERROR.points, measured: MODEL_ERROR.measured });
    assert.match(lens, /^3 candidates · predicted best (baseline|c1|c2) ≈ [\d.]+ req\/s chat \(model, median error \d+%(, \d of 3 predicted)?\)$/);
  });
});
