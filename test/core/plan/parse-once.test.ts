// The plan text is parsed once per run: preflight's re-check against the captured --help, the rows and the report all read the plan in memory.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parseYaml } from '../../../src/core/config/yaml-doc';
import { cleanup, planYaml, runOnSim, tempDir } from '../../support/runner';

describe('plan read once', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanup));

  for (const strategy of ['grid', 'adaptive'] as const) {
    test(`a whole sim run (${strategy}: preflight with help capture and smoke, a trial, the report) parses its plan text once`, async () => {
      const text = planYaml({ frameworks: { vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space:\n  max_num_seqs: [8]' }, search: 'max_candidates_per_framework: 2' });
      const texts: string[] = [];
      const dir = tempDir();
      dirs.push(dir);
      const { result } = await runOnSim(text, {
        outDir: `${dir}/run`,
        strategy,
        planReader: (t) => {
          texts.push(t);
          return parseYaml(t);
        },
      });
      assert.equal(result.status, 'completed');
      assert.deepEqual(texts, [text]);
      // The run did everything that used to re-read the plan: a help capture it re-checked against, rows, the report.
      const manifest = JSON.parse(readFileSync(`${dir}/run/manifest.json`, 'utf8')) as { frameworks: { vllm: { help: { checked_against?: string } } } };
      assert.ok(manifest.frameworks.vllm.help.checked_against, 'flags were re-checked against the captured --help');
      // The grid measures both candidates; adaptive at least the one predicted best (it may skip the other by prediction).
      const fixed = result.rows.filter((r) => r.status === 'ok' && (r.trial as { mode?: string } | undefined)?.mode === 'fixed').length;
      if (strategy === 'grid') assert.equal(fixed, 2);
      else assert.ok(fixed >= 1, `${fixed} measured rows`);
      // Candidates measured only at the plan's fixed rates are not repeated: a repeat would read no capacity for them.
      assert.ok(!result.rows.some((r) => (r.trial as { mode?: string } | undefined)?.mode === 'repeat'), 'no repeats of fixed-rate candidates');
      assert.ok(result.summary && existsSync(result.summary.markdown));
      assert.match(readFileSync(result.summary.markdown, 'utf8'), /Qwen\/Qwen3-8B/);
    });
  }
});
