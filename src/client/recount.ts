// Output tokens counted with the run's tokenizer after the fact, for a result whose client had none (a client on a
// remote host) and whose server streamed no usage: the records it could count only by chunks, then the metrics again.
import { lengthsByScenario } from '../core/workload/build';
import type { TokenizerLike } from '../core/workload/tokenizer';
import { computeMetrics } from './metrics';
import type { RequestRecord } from './record';
import type { BenchResult } from './types';

function recountRecords(records: RequestRecord[], tokenizer: TokenizerLike): number {
  let n = 0;
  for (const r of records) {
    if (r.success && r.outputTokensSource === 'stream' && r.generatedText) {
      r.outputTokens = tokenizer.encode(r.generatedText, false).length;
      r.outputTokensSource = 'tokenizer';
      n++;
    }
    r.generatedText = '';
  }
  return n;
}

/** Counts the chunk-counted records' output tokens with `tokenizer` and recomputes the metrics; returns how many were counted. */
export function recountOutputTokens(result: BenchResult, tokenizer: TokenizerLike): number {
  recountRecords(result.warmup, tokenizer);
  const n = recountRecords(result.records, tokenizer);
  if (n === 0) return 0;
  result.metrics = computeMetrics(result.records, result.metrics.durationS * 1000);
  const ok = result.records.filter((r) => r.success);
  result.lengths = { ...result.lengths, measured: lengthsByScenario(ok.map((r) => ({ scenario: r.scenario, promptLen: r.promptTokensServer ?? r.promptLen, outputLen: r.outputTokens }))) };
  return n;
}
