// The server log as each engine writes it (audit #10, #13): error lines per framework, prompts echoed by request logs never invalidate a trial, vLLM's refused prefix-cache reset makes the row say fresh-prompts; and readiness by the engine's own route (#12).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from '../../src/client';
import { isEngineErrorLine } from '../../src/core/frameworks/log-errors';
import { logNotesSince, logSize, settleFlush } from '../../src/runner/trial-checks';
import { graceOf, launchServer, TRTLLM_MIN_GRACE_MS } from '../../src/runner/server';
import { freePort, openTarget } from '../../src/runner/target';

// Shapes quoted in the audit (docs/research/real-engines-audit.md #10) and the engines' logger formats.
const ERRORS = {
  vllm: [
    'ERROR 08-14 12:34:56 [core.py:588] EngineCore failed to start.',
    '(APIServer pid=4242) ERROR 08-14 12:34:56 [serving_completion.py:141] Error in preprocessing prompt inputs',
    '(EngineCore_0 pid=777) ERROR 08-14 12:34:56 [core.py:700] EngineCore encountered a fatal error.',
  ],
  tensorrt_llm: [
    '[12/02/2026-10:00:00] [TRT-LLM] [E] Failed to fetch responses: executor shut down',
    '[12/02/2026-10:00:00] [TRT-LLM][MPI_Rank 1] [E] worker hit an error',
    '[TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp',
  ],
  sglang: [
    '[2026-12-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):',
    '[2026-12-02 10:00:00] Exception in ModelTpServer:',
    'RuntimeError: CUDA error: an illegal memory access was encountered',
  ],
  tokenspeed: ['2026-12-02T10:00:00.000000Z ERROR smg::routers::http: worker request failed', '[2026-12-02 10:00:00 TP0] Scheduler hit an exception: boom'],
} as const;

const BENIGN = {
  vllm: [
    "INFO 08-14 12:34:56 [logger.py:41] Received request cmpl-1: prompt: 'Fix this: ERROR 01-01 Traceback (most recent call last): RuntimeError', params: SamplingParams(n=1)",
    '(APIServer pid=4242) INFO 08-14 12:34:56 [loggers.py:123] Engine 000: Avg prompt throughput: 10.0 tokens/s',
    'INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 200 OK',
  ],
  tensorrt_llm: ['[12/02/2026-10:00:00] [TRT-LLM] [I] Starting server', '[12/02/2026-10:00:00] [TRT-LLM] [W] ERROR-like word in a warning'],
  sglang: ["[2026-12-02 10:00:00] Receive: obj=GenerateReqInput(text='ERROR: Traceback (most recent call last)')", '[2026-12-02 10:00:00 TP0] Decode batch. #running-req: 4, #token: 512'],
  tokenspeed: ['2026-12-02T10:00:00.000000Z  INFO smg::server: ready'],
} as const;

describe('error lines in the server log, per engine', () => {
  for (const fw of ['vllm', 'tensorrt_llm', 'sglang', 'tokenspeed'] as const) {
    test(`${fw}: its error lines count, its request echoes and info lines do not`, () => {
      for (const l of ERRORS[fw]) assert.equal(isEngineErrorLine(l, fw), true, `missed: ${l}`);
      for (const l of BENIGN[fw]) assert.equal(isEngineErrorLine(l, fw), false, `false alarm: ${l}`);
    });
  }

  test('uvicorn ERROR: lines count for every engine', () => {
    for (const fw of ['vllm', 'sglang', 'tensorrt_llm', 'tokenspeed'] as const) assert.equal(isEngineErrorLine('ERROR:    Exception in ASGI application', fw), true);
  });

  test('logNotesSince judges the lines the log gained, as the framework prints them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-log-'));
    try {
      const log = join(dir, 'server.log');
      writeFileSync(log, 'ERROR 08-14 12:00:00 [x.py:1] before the trial\n');
      const from = logSize(log);
      appendFileSync(log, `${BENIGN.vllm[0]}\n${ERRORS.tensorrt_llm[0]}\n`);
      assert.deepEqual(logNotesSince(log, from, 'vllm').errors, []);
      assert.deepEqual(logNotesSince(log, from, 'tensorrt_llm').errors, [ERRORS.tensorrt_llm[0]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("vLLM's prefix-cache reset (always 200: the log says whether it happened)", () => {
  const result = (): BenchResult => ({ flushCache: 'ok', notes: [] }) as unknown as BenchResult;

  test('a refusal in the lines gained makes the result not flushed; a later success or no word leaves it flushed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-log-'));
    try {
      const log = join(dir, 'server.log');
      writeFileSync(log, '');
      appendFileSync(log, '(EngineCore_0 pid=9) WARNING 08-14 12:00:00 [block_pool.py:300] Failed to reset prefix cache because some blocks (12) are not freed yet\n');
      const refused = result();
      settleFlush(refused, logNotesSince(log, 0, 'vllm'));
      assert.match(refused.flushCache, /^not flushed: .*Failed to reset prefix cache/);
      assert.equal(refused.notes.length, 1);
      appendFileSync(log, '(EngineCore_0 pid=9) INFO 08-14 12:00:01 [block_pool.py:310] Successfully reset prefix cache\n');
      const retried = result();
      settleFlush(retried, logNotesSince(log, 0, 'vllm'));
      assert.equal(retried.flushCache, 'ok');
      const sglang = result();
      settleFlush(sglang, logNotesSince(log, 0, 'sglang'));
      assert.equal(sglang.flushCache, 'ok', 'only vLLM is judged by its log');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readiness and teardown grace per engine', () => {
  test('SGLang is ready only once /health answers 200 (503 during its own warm-up), not at the first /v1/models', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-ready-'));
    const js = join(dir, 'server.js');
    // /v1/models lists the model at once; /health says 503 for the first 1.5 s, as SGLang's ServerStatus.Starting does.
    writeFileSync(js, `const t0=Date.now();require('http').createServer((q,s)=>{if(q.url==='/health'){s.statusCode=Date.now()-t0<1500?503:200;return s.end();}s.setHeader('content-type','application/json');s.end(JSON.stringify({data:[{id:'m'}]}));}).listen(+process.argv[2],'127.0.0.1');`);
    const target = await openTarget({ target: 'local' } as unknown as Parameters<typeof openTarget>[0], () => undefined);
    try {
      const port = await freePort();
      const t0 = performance.now();
      const r = await launchServer(target, { framework: 'sglang', argv: [process.execPath, js, String(port)], flags: { port }, logFile: join(dir, 'log'), secretEnv: [], healthTimeoutMs: 20_000, stopGraceMs: 500, signal: undefined });
      assert.ok(r.ok, JSON.stringify(r));
      assert.ok(performance.now() - t0 >= 1400, `declared ready ${Math.round(performance.now() - t0)} ms after launch, during the warm-up`);
      if (r.ok) await r.server.proc.stop({ graceMs: 500 });
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a real TensorRT-LLM server gets at least 30 s between TERM and KILL', () => {
    assert.equal(graceOf('tensorrt_llm', false, 10_000), TRTLLM_MIN_GRACE_MS);
    assert.equal(graceOf('tensorrt_llm', true, 2000), 2000, 'the simulator keeps the run grace');
    assert.equal(graceOf('vllm', false, 10_000), 10_000);
  });
});
