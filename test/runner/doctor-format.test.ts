import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doctorCounts, formatDoctor, type DoctorReport } from '../../src/runner/doctor';

const REPORT: DoctorReport = {
  target: 'ssh:gpu-1',
  host: 'gpu-1',
  simulated: false,
  ok: false,
  sections: [
    { scope: 'target', checks: [{ name: 'node', status: 'warn', detail: 'no node on the host', fix: 'install Node >= 20' }] },
    {
      scope: 'sglang',
      command: 'python -m sglang.launch_server',
      checks: [
        { name: 'cli', status: 'ok', detail: '/usr/bin/python' },
        { name: 'port', status: 'problem', detail: 'port 30000 on gpu-1 is in use', fix: 'stop what listens there' },
      ],
    },
  ],
};

test('the text report: a block per scope, each check on a line, its fix under it, and the verdict with the counts', () => {
  const text = formatDoctor(REPORT);
  assert.match(text, /^autobench doctor: --target ssh:gpu-1 \(servers would run on gpu-1\)\n/);
  assert.match(text, /\nsglang {2}\(python -m sglang\.launch_server\)\n {2}ok {7}cli {9}\/usr\/bin\/python\n {2}PROBLEM {2}port {8}port 30000 on gpu-1 is in use\n {23}fix: stop what listens there\n/);
  assert.match(text, /\n {2}warn {5}node {8}no node on the host\n {23}fix: install Node >= 20\n/);
  assert.match(text, /1 problem, 1 warning: a run cannot start until the problems are fixed\n$/);
  assert.deepEqual(doctorCounts({ ...REPORT, sections: [] }), { problems: 0, warnings: 0, text: '0 problems, 0 warnings' });
  assert.match(formatDoctor({ ...REPORT, ok: true, sections: [] }), /0 problems, 0 warnings: a run can start\n$/);
});
