// Energy per output token: the simulator's modelled counter (idle and busy shares of each GPU's board power), and on
// GPU targets nvidia-smi's power.draw sampled through the trial on the launch's GPUs and integrated (here an
// nvidia-smi stand-in that prints what the real one prints with --query-gpu=index,power.draw -lms).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/exec';
import { energyOf, integrate, parsePowerLine, withEnergy } from '../../src/runner/energy';
import type { LiveServer } from '../../src/runner/server';
import { boardWatts, BUSY_SHARE, IDLE_SHARE, modelledJoules } from '../../src/sim/power';
import { cleanup, tempDir } from '../support/runner';

/** An nvidia-smi that prints `index, watts` for each GPU it is asked for (-i) every -lms ms, and notes its argv. */
function fakeSmi(dir: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const script = `#!/bin/sh
echo "$@" > '${path.join(dir, 'argv')}'
ids=""; ms=1000
while [ $# -gt 0 ]; do case "$1" in -i) ids="$2"; shift;; -lms) ms="$2"; shift;; esac; shift; done
while true; do
  for i in $(echo "$ids" | tr ',' ' '); do if [ "$i" = 3 ]; then echo "$i, [N/A]"; else echo "$i, 350.00"; fi; done
  sleep $(awk "BEGIN{print $ms/1000}")
done
`;
  writeFileSync(path.join(bin, 'nvidia-smi'), script);
  chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
  return bin;
}

describe('energy per output token', () => {
  test('nvidia-smi lines are read as GPU and watts; [N/A] is no reading; samples integrate by trapezoids per GPU', () => {
    assert.deepEqual(parsePowerLine('1, 412.35'), { gpu: '1', watts: 412.35 });
    assert.equal(parsePowerLine('3, [N/A]'), undefined);
    assert.equal(parsePowerLine('index, power.draw [W]'), undefined);
    const got = integrate([
      { t: 0, gpu: '0', watts: 100 },
      { t: 1000, gpu: '0', watts: 300 },
      { t: 0, gpu: '1', watts: 200 },
      { t: 2000, gpu: '1', watts: 200 },
    ]);
    assert.deepEqual(got, { joules: 200 + 400, seconds: 2, gpus: 2, samples: 4 });
  });

  test('on a GPU target the trial is sampled on the launch\'s GPUs and its output tokens give joules per token', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    try {
      const bin = fakeSmi(dir);
      const ex = new LocalExecutor({ baseEnv: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
      const server = { simulated: false } as LiveServer;
      const outcome = await withEnergy(server, { executor: ex, gpus: ['0', '1'] }, async () => {
        await new Promise((r) => setTimeout(r, 1500));
        return { kind: 'done', result: { records: [{ outputTokens: 600 }, { outputTokens: 400 }], warmup: [{ outputTokens: 100 }] } };
      });
      assert.equal(outcome.kind, 'done');
      const e = energyOf(server);
      assert.equal(e?.basis, 'nvidia-smi');
      assert.equal(e?.gpus, 2);
      assert.equal(e?.output_tokens, 1100, 'warm-ups count: the energy covers them too');
      // Two GPUs at 350 W: about 700 W over the sampled span.
      assert.ok(e?.mean_power_w && Math.abs(e.mean_power_w - 700) < 1, JSON.stringify(e));
      assert.ok(e?.j_per_output_token && Math.abs(e.j_per_output_token - (e.joules ?? 0) / 1100) < 1e-3);
      assert.match(readFileSync(path.join(dir, 'argv'), 'utf8'), /--query-gpu=index,power.draw --format=csv,noheader,nounits -lms 200 -i 0,1/);
      await ex.close();
    } finally {
      cleanup(dir);
    }
  });

  test('no nvidia-smi: the row says the energy was not measured and why, the trial still runs', async () => {
    const ex = new LocalExecutor({ baseEnv: { ...process.env, PATH: '/nonexistent' } });
    const server = { simulated: false } as LiveServer;
    const outcome = await withEnergy(server, { executor: ex }, () => Promise.resolve({ kind: 'done' }));
    assert.equal(outcome.kind, 'done');
    const e = energyOf(server);
    assert.equal(e?.basis, 'unmeasured');
    assert.equal(e?.j_per_output_token, null);
    assert.match(e?.note ?? '', /nvidia-smi/);
    await ex.close();
  });

  test('the modelled counter: idle GPUs draw the idle share of their board power, a busy step the busy share', () => {
    const w = boardWatts('H200');
    assert.equal(w, 700);
    assert.equal(modelledJoules('H200', 1, [0], 10), IDLE_SHARE * 700 * 10);
    // Two replicas of 2 GPUs each, one busy half the time.
    assert.ok(Math.abs(modelledJoules('H200', 2, [5, 0], 10) - (2 * (IDLE_SHARE * w * 10 + (BUSY_SHARE - IDLE_SHARE) * w * 5) + 2 * IDLE_SHARE * w * 10)) < 1e-9);
  });
});
