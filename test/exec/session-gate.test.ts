// SessionGate: ordinary work leaves one session for teardown; waiters are served in order, teardown first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionGate } from '../../src/exec/session-gate';

test('ordinary acquisitions stop one short of the limit; a priority one still gets in', async () => {
  const gate = new SessionGate(3);
  const r1 = await gate.acquire();
  const r2 = await gate.acquire();
  let third = false;
  const p3 = gate.acquire().then((r) => ((third = true), r));
  await Promise.resolve();
  assert.equal(third, false, 'a third ordinary session must wait (one is kept for teardown)');
  const stop = await gate.acquire(true);
  assert.equal(gate.used, 3);
  stop();
  await new Promise((r) => setImmediate(r));
  assert.equal(third, false, 'the teardown slot is not handed to ordinary work');
  r1();
  const r3 = await p3;
  assert.equal(third, true);
  r2();
  r3();
  r3(); // idempotent
  assert.equal(gate.used, 0);
});

test('a waiting teardown goes before waiting ordinary work', async () => {
  const gate = new SessionGate(2);
  const held = await gate.acquire(); // ordinary max is 1
  const hp = await gate.acquire(true); // the last slot
  const order: string[] = [];
  const a = gate.acquire().then((r) => (order.push('ordinary'), r));
  const b = gate.acquire(true).then((r) => (order.push('priority'), r));
  held();
  (await b)();
  hp();
  (await a)();
  assert.deepEqual(order, ['priority', 'ordinary']);
  assert.equal(gate.used, 0);
});

test('maxSessions below 2 is refused', () => {
  assert.throws(() => new SessionGate(1), /at least 2/);
});
