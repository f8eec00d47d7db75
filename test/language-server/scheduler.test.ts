// DiagnosticScheduler in-process: per-document debounce (only the last of rapid edits runs), opening runs at once, cancel; asserted on order and counts, never on elapsed time.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticScheduler } from '../../language-server/src/scheduler';

/** A scheduler whose runs are recorded in order; `delay` is read on every schedule, as the server reads its setting. */
function recorder(delay: { ms: number }) {
  const runs: string[] = [];
  const scheduler = new DiagnosticScheduler(
    () => delay.ms,
    (uri) => runs.push(uri),
  );
  return { runs, scheduler };
}

describe('debounce, on mocked timers', () => {
  const fake = (t: TestContext) => t.mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });

  test('rapid edits run once, a full quiet period after the last one', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 150 });
    for (let i = 0; i < 5; i++) {
      scheduler.schedule('a', false);
      t.mock.timers.tick(100);
    }
    // 500 ticks have passed since the first edit, 100 since the last: nothing yet.
    assert.deepEqual(runs, []);
    t.mock.timers.tick(49);
    assert.deepEqual(runs, []);
    t.mock.timers.tick(1);
    assert.deepEqual(runs, ['a']);
    t.mock.timers.tick(10_000);
    assert.deepEqual(runs, ['a']);
  });

  test('opening runs at once, whatever the debounce, and replaces a pending edit', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 60_000 });
    scheduler.schedule('a', false);
    scheduler.schedule('a', true);
    t.mock.timers.tick(0);
    assert.deepEqual(runs, ['a']);
    t.mock.timers.tick(60_000);
    assert.deepEqual(runs, ['a'], 'the replaced edit does not run later');
  });

  test('an edit right after opening waits for the quiet period instead', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 150 });
    scheduler.schedule('a', true);
    scheduler.schedule('a', false);
    t.mock.timers.tick(149);
    assert.deepEqual(runs, []);
    t.mock.timers.tick(1);
    assert.deepEqual(runs, ['a']);
  });

  test('documents are debounced apart, each from its own last edit', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 150 });
    scheduler.schedule('a', false);
    t.mock.timers.tick(10);
    scheduler.schedule('b', false);
    t.mock.timers.tick(10);
    scheduler.schedule('a', false);
    t.mock.timers.tick(140);
    assert.deepEqual(runs, ['b']);
    t.mock.timers.tick(10);
    assert.deepEqual(runs, ['b', 'a']);
  });

  test('the delay is read at each schedule; a negative one means at once', (t) => {
    fake(t);
    const delay = { ms: 100 };
    const { runs, scheduler } = recorder(delay);
    scheduler.schedule('a', false);
    delay.ms = 300;
    scheduler.schedule('a', false);
    t.mock.timers.tick(299);
    assert.deepEqual(runs, []);
    t.mock.timers.tick(1);
    assert.deepEqual(runs, ['a']);
    delay.ms = -5;
    scheduler.schedule('b', false);
    t.mock.timers.tick(0);
    assert.deepEqual(runs, ['a', 'b']);
  });

  test('with no quiet period an edit runs on the next turn, after the edits already read, and can still be cancelled', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 0 });
    scheduler.schedule('a', false);
    scheduler.schedule('a', false);
    scheduler.schedule('b', true);
    scheduler.cancel('b');
    assert.deepEqual(runs, []);
    t.mock.timers.tick(0);
    assert.deepEqual(runs, ['a']);
  });

  test('cancel (a closed document) drops the pending run; cancelling nothing is harmless', (t) => {
    fake(t);
    const { runs, scheduler } = recorder({ ms: 150 });
    scheduler.schedule('a', false);
    scheduler.schedule('b', false);
    scheduler.cancel('a');
    scheduler.cancel('never-scheduled');
    t.mock.timers.tick(1_000);
    assert.deepEqual(runs, ['b']);
    scheduler.schedule('a', false);
    t.mock.timers.tick(150);
    assert.deepEqual(runs, ['b', 'a'], 'a cancelled document can be scheduled again');
  });

  test('a run may schedule its own document again', (t) => {
    fake(t);
    let again = true;
    const runs: string[] = [];
    const scheduler: DiagnosticScheduler = new DiagnosticScheduler(
      () => 150,
      (uri) => {
        runs.push(uri);
        if (again) {
          again = false;
          scheduler.schedule(uri, false);
        }
      },
    );
    scheduler.schedule('a', true);
    t.mock.timers.tick(0);
    assert.deepEqual(runs, ['a']);
    t.mock.timers.tick(150);
    assert.deepEqual(runs, ['a', 'a']);
  });
});

describe('debounce, on real timers', () => {
  test('of rapid edits only the last runs: a later document with the same delay runs after it, and nothing else ran', async () => {
    const runs: string[] = [];
    let done: () => void = () => undefined;
    const sentinelRan = new Promise<void>((resolve) => {
      done = resolve;
    });
    const scheduler = new DiagnosticScheduler(
      () => 5,
      (uri) => {
        runs.push(uri);
        if (uri === 'sentinel') done();
      },
    );
    for (let i = 0; i < 20; i++) scheduler.schedule('a', false);
    // Timers of one duration fire in the order they were set: when the sentinel runs, every
    // timer set for `a` before it has fired or was cancelled.
    scheduler.schedule('sentinel', false);
    await sentinelRan;
    assert.deepEqual(runs, ['a', 'sentinel']);
  });

  test('an opened document runs before an edited one whose quiet period is still running', async () => {
    const runs: string[] = [];
    let done: () => void = () => undefined;
    const both = new Promise<void>((resolve) => {
      done = resolve;
    });
    const scheduler = new DiagnosticScheduler(
      () => 5,
      (uri) => {
        runs.push(uri);
        if (runs.length === 2) done();
      },
    );
    scheduler.schedule('edited', false);
    scheduler.schedule('opened', true);
    await both;
    assert.deepEqual(runs, ['opened', 'edited']);
  });
});
