// The per-edit messages besides diagnostics, in-process: the status bar's notification (sent when what it shows
// changes, else at most once a second with the latest time) and the stdio writer (the bytes vscode-jsonrpc writes, in
// one write per message).
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { StreamMessageWriter, type Message } from 'vscode-languageserver/node';
import type { StatusParams } from '../../src/shared/protocol';
import { STATUS_INTERVAL_MS, StatusNotifier } from '../../language-server/src/status';
import { OneWriteMessageWriter } from '../../language-server/src/stdio-writer';

const status = (uri: string, n: number, errors = 0, label = 'flags: built-in table (vLLM 0.20.1)'): StatusParams => ({
  uri,
  sources: ['vLLM built-in table (0.20.1)'],
  label,
  builtinOnly: true,
  validatedAt: `t${n}`,
  ms: n,
  errors,
  warnings: 0,
});

function notifier(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const sent: string[] = [];
  const n = new StatusNotifier((s) => sent.push(`${s.uri}@${s.validatedAt}`));
  return { n, sent, tick: (ms: number) => t.mock.timers.tick(ms) };
}

describe('status notifications', () => {
  test('the first one goes at once; while typing, one a second with the latest validation', (t) => {
    const { n, sent, tick } = notifier(t);
    n.update(status('a', 1));
    assert.deepEqual(sent, ['a@t1']);
    for (let i = 2; i <= 10; i++) {
      tick(50);
      n.update(status('a', i));
    }
    assert.deepEqual(sent, ['a@t1'], 'nothing new to show but the time');
    tick(STATUS_INTERVAL_MS - 450 - 1);
    assert.deepEqual(sent, ['a@t1']);
    tick(1);
    assert.deepEqual(sent, ['a@t1', 'a@t10'], 'a second after the last one sent: the latest');
    tick(10 * STATUS_INTERVAL_MS);
    assert.deepEqual(sent, ['a@t1', 'a@t10']);
    n.update(status('a', 11));
    assert.deepEqual(sent, ['a@t1', 'a@t10', 'a@t11'], 'after a quiet second, at once again');
  });

  test('a change in what the item shows goes at once and replaces the pending one', (t) => {
    const { n, sent, tick } = notifier(t);
    n.update(status('a', 1));
    tick(10);
    n.update(status('a', 2));
    n.update(status('a', 3, 1));
    assert.deepEqual(sent, ['a@t1', 'a@t3']);
    tick(10 * STATUS_INTERVAL_MS);
    assert.deepEqual(sent, ['a@t1', 'a@t3'], 'the pending t2 was dropped');
    // A framework enabled or disabled changes the label alone: that shows at once too.
    n.update(status('a', 4, 1, 'flags: built-in table (SGLang main 2026-07-18, vLLM 0.20.1)'));
    assert.deepEqual(sent, ['a@t1', 'a@t3', 'a@t4']);
  });

  test('documents apart; a closed document gets nothing more', (t) => {
    const { n, sent, tick } = notifier(t);
    n.update(status('a', 1));
    n.update(status('b', 1));
    tick(10);
    n.update(status('a', 2));
    n.update(status('b', 2));
    n.forget('a');
    tick(STATUS_INTERVAL_MS);
    assert.deepEqual(sent, ['a@t1', 'b@t1', 'b@t2']);
    n.update(status('a', 3));
    assert.deepEqual(sent, ['a@t1', 'b@t1', 'b@t2', 'a@t3'], 'reopened: at once');
  });
});

/** A stream that records each write it gets. */
function sink(): { stream: Writable; writes: Buffer[] } {
  const writes: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      writes.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
      done();
    },
  });
  return { stream, writes };
}

describe('the stdio writer', () => {
  const messages: Message[] = [
    { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///a.yaml', version: 3, diagnostics: [] } } as Message,
    { jsonrpc: '2.0', id: 7, result: { label: 'naïve – ✓ 模型', n: 1.5, nested: [null, true] } } as Message,
  ];

  test('writes the bytes vscode-jsonrpc writes, one write per message', async () => {
    const ours = sink();
    const theirs = sink();
    const a = new OneWriteMessageWriter(ours.stream);
    const b = new StreamMessageWriter(theirs.stream);
    for (const m of messages) {
      await a.write(m);
      await b.write(m);
    }
    assert.equal(ours.writes.length, messages.length);
    assert.equal(theirs.writes.length, 2 * messages.length, 'theirs: a header, then the body');
    assert.deepEqual(Buffer.concat(ours.writes), Buffer.concat(theirs.writes));
    assert.match(ours.writes[1]!.toString('utf8'), /^Content-Length: \d+\r\n\r\n\{/);
  });

  test('a failed write rejects and is reported as the connection expects', async () => {
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error('EPIPE'));
      },
    });
    stream.on('error', () => undefined);
    const w = new OneWriteMessageWriter(stream);
    const errors: unknown[] = [];
    w.onError((e) => errors.push(e));
    await assert.rejects(w.write(messages[0]!), /EPIPE/);
    assert.ok(errors.length >= 1);
  });
});
