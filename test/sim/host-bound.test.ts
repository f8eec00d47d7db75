// A simulated engine on a busy machine says so: when its process is held up (here a synchronous busy loop stands in for a loaded host), the schedule falls behind real time and the log gets a host-bound line the runner's validity gate reads.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HOST_BOUND_MARK } from '../../src/sim/options';
import { sim, stream } from '../support/sim';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* holds the event loop, as a busy machine would */
  }
}

async function linesWhile(hold: number, maxLagMs = 50): Promise<string[]> {
  const lines: string[] = [];
  const s = await sim('vllm', [MODEL], { sim: { speed: 1, maxLagMs }, log: (l) => lines.push(l) });
  try {
    const req = stream(s, '/v1/completions', { model: MODEL, prompt: 'hello '.repeat(64), max_tokens: 400, ignore_eos: true, stream: true });
    await new Promise((r) => setTimeout(r, 100));
    busy(hold);
    await req;
    await new Promise((r) => setTimeout(r, 1200));
  } finally {
    await s.close();
  }
  return lines.filter((l) => l.includes(HOST_BOUND_MARK));
}

describe('host-bound simulated engine', () => {
  test('a held-up process logs how far it fell behind; within --sim-max-lag it catches up and logs nothing', { timeout: 30_000 }, async () => {
    const held = await linesWhile(400);
    assert.ok(held.length >= 1, 'a 400 ms hold during decoding is reported');
    assert.match(held[0] ?? '', /^WARNING autobench-sim host-bound: the simulated engine fell \d+ ms behind real time/);
    const ms = Number(/fell (\d+) ms/.exec(held.join('\n'))?.[1]);
    assert.ok(ms >= 200, `reported ${ms} ms for a 400 ms hold`);
    // The same hold inside a 2 s max lag: the schedule catches up, no time is lost, nothing is said.
    assert.deepEqual(await linesWhile(400, 2000), []);
  });
});
