// Trust boundaries in the trusted editor: the hostile fixture's server_command really runs once a run goes ahead (so
// the Restricted Mode suite's "no marker" can fail), and a run to an ssh: host (a real OpenSSH server on 127.0.0.1)
// asks before it sends HF_TOKEN: declined, the host's server sees none; approved, it gets it.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startSshd, type Sshd } from '../../support/sshd';
import { test, waitFor } from './harness';
import { extension } from './workspace';

/** The repository (the suite runs from out/vscode-suite): fixtures and a local tokenizer for the ssh run. */
const REPO = path.resolve(__dirname, '..', '..');
const HOSTILE_PLAN = path.join(REPO, 'test', 'vscode', 'fixtures', 'hostile-workspace', 'plans', 'hostile.autobench.yaml');
const MARKER = path.join(tmpdir(), 'autobench-hostile-marker');
const TOKENIZER = path.join(REPO, 'node_modules', '@lenml', 'tokenizer-llama2', 'models', 'tokenizer.json');
/** Not hf_-shaped, with a space, quotes and shell metacharacters. */
const TOKEN = `a b'c;$(x) hf-vscode-suite-0123456789`;

interface RunResultLike {
  status: string;
  reason?: string;
  outDir: string;
  rows: Array<{ framework?: string; status?: string; smoke?: boolean }>;
  secrets: { asked: string[]; sent: string[]; withheld: string[] };
}

type Answer = 'once' | 'always' | 'no';

function folderPath(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'no workspace folder');
  return folder;
}

function writePlan(name: string, text: string): vscode.Uri {
  const file = path.join(folderPath(), 'plans', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return vscode.Uri.file(file);
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('trusted: the hostile fixture\'s server_command runs when a run goes ahead (it writes its marker)', async () => {
  await extension().activate();
  assert.equal(vscode.workspace.isTrusted, true, 'this suite runs with Workspace Trust off (every workspace trusted)');
  rmSync(MARKER, { force: true });
  const uri = writePlan('hostile.autobench.yaml', readFileSync(HOSTILE_PLAN, 'utf8'));
  const result = await vscode.commands.executeCommand<RunResultLike | undefined>('autobench.runBaseline', uri.toString(), 'sglang', { wait: true, target: 'sim', simSpeed: 20, ifErrors: 'run' });
  assert.ok(result, 'the run returned nothing');
  assert.ok(existsSync(MARKER), `the plan's server_command did not write ${MARKER}: the Restricted Mode check would prove nothing`);
  rmSync(MARKER, { force: true });
}, 90_000);

let sshd: Sshd | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** The loopback sshd as `ssh:sshd-test` in this test home's ~/.ssh (config and known_hosts), the simulator's CLIs first on its PATH. */
async function sshHost(): Promise<Sshd> {
  if (sshd) return sshd;
  const ext = extension().extensionPath;
  for (const f of readdirSync(path.join(ext, 'bin', 'sim'))) if (!f.includes('.')) chmodSync(path.join(ext, 'bin', 'sim', f), 0o755);
  const hostCache = path.join(tmpdir(), 'host-cache');
  sshd = await startSshd({
    extraConfig: `SetEnv PATH=${path.join(ext, 'bin', 'sim')}:${path.dirname(process.execPath)}:/usr/bin:/bin AUTOBENCH_SIM_JS=${path.join(ext, 'dist', 'sim.js')} AUTOBENCH_NODE=${process.execPath} "AUTOBENCH_SIM_OPTS=--sim-speed 20" XDG_CACHE_HOME=${hostCache}`,
  });
  const home = process.env.HOME ?? '';
  assert.ok(home.startsWith(tmpdir()), `HOME (${home}) is not the test host's own: refusing to write its ~/.ssh`);
  mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(home, '.ssh', 'config'), readFileSync(sshd.writeConfig(), 'utf8'));
  writeFileSync(path.join(home, '.ssh', 'known_hosts'), `${sshd.knownHostsLine}\n`);
  return sshd;
}

/** A one-candidate plan whose sglang server_command records, per start on the host, whether HF_TOKEN was set (never its value). */
function recordingPlan(seen: string, port: number): string {
  return [
    'model:',
    '  name: Qwen/Qwen3-8B',
    `  tokenizer: ${TOKENIZER}`,
    'hardware:',
    '  gpu_model: NVIDIA H100 80GB HBM3',
    '  gpu_count: 1',
    'dataset:',
    '  kind: random',
    '  num_prompts: 8',
    '  scenario_names: [chat]',
    '  input_len: [256]',
    '  output_len: [32]',
    'benchmark:',
    '  framework_set: [sglang]',
    '  request_rates: [inf]',
    'sla:',
    '  max_p50_ttft_ms: 100000',
    'search:',
    '  strategy: grid',
    '  max_candidates_per_framework: 1',
    'frameworks:',
    '  sglang:',
    '    enabled: true',
    // The simulator's python shim by its path: the host's login PATH may put another python first.
    `    server_command: sh -c 'if [ -n "$HF_TOKEN" ]; then echo set; else echo unset; fi >> ${seen}; exec ${path.join(extension().extensionPath, 'bin', 'sim', 'python')} -m sglang.launch_server "$@"' sh`,
    '    base_server_flags:',
    '      model_path: Qwen/Qwen3-8B',
    '      context_length: 4096',
    // Its own port: other tests on this machine start servers on sglang's default one.
    `      port: ${port}`,
    '  vllm:',
    '    enabled: false',
    '  tensorrt_llm:',
    '    enabled: false',
    '  tokenspeed:',
    '    enabled: false',
    '',
  ].join('\n');
}

/**
 * Runs the recording plan's baseline on ssh:sshd-test; `answer` is what the user says to "Send HF_TOKEN to …?" (VS
 * Code's test host refuses modal dialogs, so the extension takes a test's answer in ExtensionMode.Test only).
 */
async function sshRun(answer: Answer): Promise<{ result: RunResultLike; seen: string[] }> {
  await sshHost();
  const seen = path.join(tmpdir(), `hf-seen-${answer}-${Date.now()}.log`);
  const uri = writePlan('secrets.autobench.yaml', recordingPlan(seen, await freePort()));
  const result = await vscode.commands.executeCommand<RunResultLike | undefined>('autobench.runBaseline', uri.toString(), 'sglang', { wait: true, target: 'ssh:sshd-test', ifErrors: 'run', secretAnswer: answer, repeats: 0 });
  assert.ok(result, 'the run returned nothing');
  assert.equal(result.status, 'completed', result.reason);
  assert.ok(result.rows.some((r) => r.framework === 'sglang' && r.status === 'ok' && !r.smoke), JSON.stringify(result.rows.map((r) => r.status)));
  // Whatever was decided, the value is in no file of the run.
  for (const f of filesUnder(result.outDir)) assert.ok(!readFileSync(f, 'utf8').includes(TOKEN), `${f} holds the token`);
  return { result, seen: existsSync(seen) ? readFileSync(seen, 'utf8').split('\n').filter(Boolean) : [] };
}

/** A run to ssh:sshd-test answered "no" if asked and cancelled at once: what it asked, sent and withheld (decided before it starts). */
async function cancelledRunSecrets(): Promise<RunResultLike['secrets']> {
  const uri = writePlan('secrets.autobench.yaml', recordingPlan(path.join(tmpdir(), 'hf-seen-cancelled.log'), await freePort()));
  const pending = vscode.commands.executeCommand<RunResultLike | undefined>('autobench.runBaseline', uri.toString(), 'sglang', { wait: true, target: 'ssh:sshd-test', ifErrors: 'run', secretAnswer: 'no', repeats: 0 });
  await waitFor('the run to start', async () => vscode.commands.executeCommand<boolean>('autobench.cancelRun'), 30_000, 20);
  const result = await pending;
  assert.ok(result, 'the run returned nothing');
  return result.secrets;
}

test('ssh: a run asks "Send HF_TOKEN to ssh:sshd-test?"; declined, the servers on the host get no HF_TOKEN', async () => {
  await extension().activate();
  // The token as VS Code's environment holds it (a user who exported HF_TOKEN before starting VS Code).
  process.env.HF_TOKEN = TOKEN;
  const { result, seen } = await sshRun('no');
  assert.deepEqual(result.secrets, { asked: ['Send HF_TOKEN to ssh:sshd-test?'], sent: [], withheld: ['HF_TOKEN'] });
  assert.ok(seen.length >= 2, `the host started the server command ${seen.length} times (help capture, launches)`);
  assert.deepEqual([...new Set(seen)], ['unset'], 'a server on the host saw HF_TOKEN although the user declined');
}, 240_000);

test('ssh: "Always for This Host" sends it (the host\'s servers see HF_TOKEN); the next run sends it without asking; Revoke Secret Approvals forgets it', async () => {
  await extension().activate();
  process.env.HF_TOKEN = TOKEN;
  try {
    const first = await sshRun('always');
    assert.deepEqual(first.result.secrets, { asked: ['Send HF_TOKEN to ssh:sshd-test?'], sent: ['HF_TOKEN'], withheld: [] });
    assert.ok(first.seen.includes('set'), `no server on the host saw HF_TOKEN: ${first.seen.join(',')}`);
    // Remembered: the next run is not asked (its answer would be "no") and sends it.
    assert.deepEqual(await cancelledRunSecrets(), { asked: [], sent: ['HF_TOKEN'], withheld: [] });
    // Revoking nothing returns what is kept; then revoke all.
    const kept = await vscode.commands.executeCommand<Record<string, string[]>>('autobench.revokeSecretApprovals', []);
    assert.deepEqual(kept, { 'ssh:sshd-test': ['HF_TOKEN'] });
    const left = await vscode.commands.executeCommand<Record<string, string[]>>('autobench.revokeSecretApprovals', 'all');
    assert.deepEqual(left, {});
    assert.deepEqual(await cancelledRunSecrets(), { asked: ['Send HF_TOKEN to ssh:sshd-test?'], sent: [], withheld: ['HF_TOKEN'] });
  } finally {
    delete process.env.HF_TOKEN;
    await sshd?.close();
    sshd = undefined;
  }
}, 360_000);
