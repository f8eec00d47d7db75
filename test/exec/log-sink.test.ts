// LogSink: line-wise redaction across chunk boundaries, exact secret values, tail, onLine filtering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSink, makeRedactor } from '../../src/exec/log-sink';

test('a token split across chunks and streams is still redacted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-sink-'));
  try {
    const file = join(dir, 'nested', 'server.log');
    const sink = new LogSink({ file, secretValues: ['s3cr3t-value'] });
    const token = 'hf_' + 'QwErTyUiOpAsDfGhJkLzXcVbNm';
    sink.write('stdout', 'loading with token ' + token.slice(0, 5));
    sink.write('stderr', 'warn: s3cr3t-');
    sink.write('stdout', Buffer.from(token.slice(5) + ' done\nnext line\n'));
    sink.write('stderr', 'value leaked\n');
    sink.write('stdout', 'no newline at the end');
    await sink.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.deepEqual(lines, [
      'loading with token <redacted> done',
      'next line',
      'warn: <redacted> leaked',
      'no newline at the end',
      '',
    ]);
    assert.deepEqual(sink.tail(2), ['warn: <redacted> leaked', 'no newline at the end']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a multi-byte character split across chunks survives', async () => {
  const sink = new LogSink();
  const bytes = Buffer.from('GPU 温度 ok\n');
  sink.write('stdout', bytes.subarray(0, 5));
  sink.write('stdout', bytes.subarray(5));
  await sink.close();
  assert.deepEqual(sink.tail(), ['GPU 温度 ok']);
});

test('onLine returning true keeps a line out of the log and the tail; tail is bounded', async () => {
  const seen: string[] = [];
  const sink = new LogSink({ tailLines: 2, onLine: (l) => (seen.push(l), l.startsWith('@@')) });
  sink.write('x', '@@marker 12\na\nb\nc\r\n');
  await sink.close();
  assert.deepEqual(seen, ['@@marker 12', 'a', 'b', 'c']);
  assert.deepEqual(sink.tail(), ['b', 'c']);
});

test('makeRedactor: exact values, longest first, short values ignored, patterns too', () => {
  const r = makeRedactor(['abc', 'password123', 'password123456']);
  assert.equal(r('x password123456 y password123 abc'), 'x <redacted> y <redacted> abc');
  assert.equal(r('HF_TOKEN=whatever'), 'HF_TOKEN=<redacted>');
});
