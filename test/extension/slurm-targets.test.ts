// "Select Run Target"'s Slurm entries: sinfo's partitions (default first, node groups merged), the open plan's slurm.partition, and nothing (quietly) when sinfo is missing, failing or slow — sinfo run for real, a stand-in script on PATH.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSinfoPartitions, planSlurmOf } from '../../src/core/plan/slurm-partitions';
import { slurmTargetItems, slurmTargets } from '../../src/extension/slurm-targets';

/** Two partitions of mixed node groups, the default (`gpu*`) listed second, one without GPUs and one down. */
const SINFO = ['debug|(null)|2|up', 'gpu*|gpu:h100:8(S:0-1)|3|up', 'gpu*|gpu:h100:4|1|up', 'a100|gpu:4,shard:8|2|down', ''].join('\n');

const PLAN = `# autobench
slurm:
  partition: a100
  time_limit: "01:00:00"
`;

describe('sinfo partitions', () => {
  test('one entry per partition, the default first, then by name; node groups merged (most GPUs per node, nodes summed)', () => {
    assert.deepEqual(parseSinfoPartitions(SINFO), [
      { name: 'gpu', isDefault: true, gpusPerNode: 8, nodes: 4, up: true },
      { name: 'a100', isDefault: false, gpusPerNode: 4, nodes: 2, up: false },
      { name: 'debug', isDefault: false, gpusPerNode: 0, nodes: 2, up: true },
    ]);
  });

  test('the GPUs counted are the plan GRES name; junk lines are ignored', () => {
    assert.deepEqual(
      parseSinfoPartitions(`${SINFO}\nnot a sinfo line\n`, 'shard').map((p) => [p.name, p.gpusPerNode]),
      [['gpu', 0], ['a100', 8], ['debug', 0]],
    );
    assert.deepEqual(parseSinfoPartitions(''), []);
  });

  test("the plan's slurm block: partition and GRES; none when the text has no block or is no mapping", () => {
    assert.deepEqual(planSlurmOf(PLAN), { partition: 'a100', gres: 'gpu' });
    assert.deepEqual(planSlurmOf('slurm:\n  gres: shard\n'), { gres: 'shard' });
    assert.equal(planSlurmOf('model:\n  name: x\n'), undefined);
    assert.equal(planSlurmOf('- a\n- b\n'), undefined);
    assert.equal(planSlurmOf('slurm: [unclosed'), undefined);
  });
});

describe('the target list', () => {
  const parts = parseSinfoPartitions(SINFO);

  test('slurm:NAME per partition, default first, GPUs per node and node count in the description', () => {
    const items = slurmTargetItems(parts, undefined);
    assert.deepEqual(items.map((i) => i.label), ['slurm:gpu', 'slurm:a100', 'slurm:debug']);
    assert.equal(items[0]?.description, 'Slurm partition (default): 8 gpu per node, 4 nodes');
    assert.equal(items[1]?.description, 'Slurm partition: 4 gpu per node, 2 nodes · not up');
  });

  test("the plan's partition is marked when sinfo lists it, and added last when it does not", () => {
    assert.match(slurmTargetItems(parts, 'a100')[1]?.description ?? '', /the plan's slurm\.partition$/);
    const items = slurmTargetItems(parts, 'h200');
    assert.deepEqual(items.map((i) => i.label), ['slurm:gpu', 'slurm:a100', 'slurm:debug', 'slurm:h200']);
    assert.match(items[3]?.description ?? '', /sinfo does not list it/);
  });
});

describe('sinfo run on this host (a stand-in on PATH)', () => {
  let dir: string;
  const env = (bin: string): NodeJS.ProcessEnv => ({ ...process.env, PATH: bin });
  const standIn = (name: string, body: string): string => {
    const bin = join(dir, name);
    const file = join(bin, 'sinfo');
    mkdirSync(bin);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return bin;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-sinfo-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('its answer becomes the entries, with the open plan partition and GRES applied; sinfo gets the agreed format', async () => {
    const bin = standIn('ok', `[ "$*" = "--noheader --format=%P|%G|%D|%a" ] || { echo "unexpected args: $*" >&2; exit 2; }\nprintf '%s\\n' 'debug|(null)|2|up' 'gpu*|gpu:h100:8(S:0-1)|3|up' 'a100|gpu:4|2|up'`);
    const r = await slurmTargets(PLAN, { env: env(bin) });
    assert.equal(r.note, undefined);
    assert.deepEqual(r.items.map((i) => i.label), ['slurm:gpu', 'slurm:a100', 'slurm:debug']);
    assert.match(r.items[1]?.description ?? '', /the plan's slurm\.partition/);
    const noPlan = await slurmTargets(undefined, { env: env(bin) });
    assert.deepEqual(noPlan.items.map((i) => i.label), ['slurm:gpu', 'slurm:a100', 'slurm:debug']);
  });

  test('sinfo missing: no entries, even for the plan partition, and a quiet note', async () => {
    const r = await slurmTargets(PLAN, { env: env(join(dir, 'nowhere')) });
    assert.deepEqual(r.items, []);
    assert.match(r.note ?? '', /sinfo not found/);
  });

  test('sinfo failing (no controller) or too slow: no entries, the reason in the note', async () => {
    const failing = await slurmTargets(PLAN, { env: env(standIn('down', 'echo "slurm_load_partitions: Unable to contact slurm controller" >&2; exit 1')) });
    assert.deepEqual(failing.items, []);
    assert.match(failing.note ?? '', /sinfo failed: slurm_load_partitions: Unable to contact slurm controller/);
    const slow = await slurmTargets(PLAN, { env: env(standIn('slow', 'exec /bin/sleep 30')), timeoutMs: 300 });
    assert.deepEqual(slow.items, []);
    assert.match(slow.note ?? '', /did not answer within 0\.3 s/);
  });
});
