// Replays every committed engine fixture set (test/fixtures/engines/<engine>/<version>/) through the product's readers: help parser, version reader, stream parser, log error gate.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO, tempDir } from '../support/runner';
import { fixtureSets, kindOf, parseStream, replaySet, streamFacts } from './fixture-replay';

const ROOT = path.join(REPO, 'test/fixtures/engines');
const SETS = fixtureSets(ROOT);

describe('engine fixtures replayed through the product readers', () => {
  test('the committed sets cover every engine, and none is simulated', () => {
    const engines = new Set(SETS.map((d) => path.basename(path.dirname(d))));
    assert.deepEqual([...engines].sort(), ['sglang', 'tokenspeed', 'trtllm', 'vllm']);
    for (const d of SETS) assert.notEqual(kindOf(d), 'simulated', `${d}: simulated output is never committed as an engine fixture`);
  });

  for (const dir of SETS) {
    test(path.relative(ROOT, dir), () => {
      const r = replaySet(dir);
      assert.deepEqual(r.problems, [], r.problems.join('\n'));
      assert.ok(r.checked.length > 0);
    });
  }

  test('a replay that cannot fail proves nothing: wrong expectations and a broken stream are reported', () => {
    const dir = path.join(tempDir('engine-fixture-'), 'sglang', '0.5.7');
    cpSync(path.join(ROOT, 'sglang/0.5.7'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'expect.txt'), 'version 0.5.8 probe python\nhelp help.txt options 320\nsse stream-completions.sse tokens 15\nlog startup.log errors+\n');
    const problems = replaySet(dir).problems.join('\n');
    assert.match(problems, /version reader gives 0\.5\.7, expected 0\.5\.8/);
    assert.match(problems, /help parser finds 321 options, expected 320/);
    assert.match(problems, /tokens is 16, expect.txt says 15/);
    assert.match(problems, /finds no error line in an error log/);
    // A stream whose final usage chunk is gone: the parser must see no usage, as the independent reading does.
    const sse = readFileSync(path.join(dir, 'stream-completions.sse'), 'utf8').replace(/data: \{[^\n]*"choices":\[\],"usage"[^\n]*\n\n/, '');
    assert.equal(streamFacts(sse, false).usageCompletion, undefined);
    assert.equal(parseStream(Buffer.from(sse), false, 5).usageCompletion, undefined);
    rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  });
});
