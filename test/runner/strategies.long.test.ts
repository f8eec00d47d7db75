// Adaptive against grid on the shipped demo plan (the simulated engine, one seed): both name the same winners or ties, and the manifest states the GPU-seconds of each — adaptive's below grid's, with the grid's predicted. About four minutes, so it is its own command (`npm run test:strategies`), not part of `npm test`.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { disagreements, type ScenarioVerdictJson } from '../support/agreement';
import { cleanup, tempDir } from '../support/runner';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const PLAN = path.join(REPO, 'configs/examples/demo.plan.yaml');

function run(out: string, strategy: 'grid' | 'adaptive'): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = [CLI, 'run', PLAN, '--target', 'sim', '--out', out, '--quiet', '--strategy', strategy, '--no-calibration'];
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${strategy}: exit ${code}: ${err.slice(-600)}`))));
  });
}

interface Manifest {
  gpu_seconds: { total: number };
  search_strategy: { name: string; measured: string[]; skipped: unknown[]; grid_gpu_seconds_predicted?: number };
}

describe('adaptive and grid on the demo plan', () => {
  const dir = tempDir();
  after(() => cleanup(dir));

  test('name the same winners or ties; the manifest states the GPU-seconds of each', { timeout: 30 * 60_000 }, async () => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: npm run build first');
    const read = (s: 'grid' | 'adaptive') => ({
      scenarios: (JSON.parse(readFileSync(path.join(dir, s, 'summary.json'), 'utf8')) as { scenarios: ScenarioVerdictJson[] }).scenarios,
      manifest: JSON.parse(readFileSync(path.join(dir, s, 'manifest.json'), 'utf8')) as Manifest,
    });
    await run(path.join(dir, 'adaptive'), 'adaptive');
    await run(path.join(dir, 'grid'), 'grid');
    const a = read('adaptive');
    const g = read('grid');
    assert.deepEqual(disagreements([a.scenarios, g.scenarios]), []);
    assert.equal(a.manifest.search_strategy.name, 'adaptive');
    assert.equal(g.manifest.search_strategy.name, 'grid');
    assert.ok(a.manifest.gpu_seconds.total > 0 && g.manifest.gpu_seconds.total > 0);
    assert.ok((a.manifest.search_strategy.grid_gpu_seconds_predicted ?? 0) > a.manifest.gpu_seconds.total, "adaptive's manifest predicts the grid's cost above its own");
  });
});
