// The report's workload facts state that random prompts understate speculative decoding when a candidate of the run
// uses it (SGLang speculative_algorithm, vLLM speculative_config in server_flags or the command), and only then.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderReportMarkdown } from '../../../src/core/results/report-write';
import { reportOf, searchRow, type Row } from '../../support/report-rows';

function row(fw: string, cand: string, kind: string, extra: Partial<Row> = {}): Row {
  return { ...searchRow(fw, cand, 4, true), workload: { kind, scenario: 'chat' }, ...extra };
}
const caveatOf = (rows: Row[]) => reportOf(rows).workload.find((f) => f.label === 'Speculative decoding')?.value;

describe('speculative decoding caveat in the workload facts', () => {
  test('random-ids rows with an SGLang candidate using speculative_algorithm: stated, naming the candidate', () => {
    const rows = [row('sglang', 'baseline', 'random-ids'), row('sglang', 'c1', 'random-ids', { server_flags: { speculative_algorithm: 'EAGLE3', speculative_num_steps: 3 } })];
    const text = caveatOf(rows);
    assert.match(text ?? '', /^random-ids prompts understate speculative decoding acceptance .*so sglang c1 read lower than on real text; measure them with dataset\.kind builtin-text/);
    assert.match(renderReportMarkdown(reportOf(rows)), /Speculative decoding.*random-ids prompts understate/);
  });

  test('a vLLM command with --speculative-config counts; builtin-text rows, or no speculative candidate, say nothing', () => {
    const spec = { server_command: `vllm serve m --speculative-config '{"method": "ngram"}'` };
    assert.match(caveatOf([row('vllm', 'c2', 'random', spec)]) ?? '', /^random prompts understate .* vllm c2/);
    assert.equal(caveatOf([row('vllm', 'c2', 'builtin-text', spec)]), undefined);
    assert.equal(caveatOf([row('vllm', 'c2', 'random', { server_flags: { speculative_config: null } })]), undefined);
    assert.equal(caveatOf([row('vllm', 'c2', 'random')]), undefined);
  });
});
