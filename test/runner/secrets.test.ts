// Secrets through a whole CLI run on the simulated engine: values of unusual shapes never reach a file under the run directory, stderr or a server's argv; a literal token stops the run; an API key from a named variable reaches vLLM through its environment and the client sends it; a wrong key fails at the health check with 401 in seconds.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { shlexQuote } from '../../src/core/candidates/shell';
import { HELP } from '../support/fixtures';
import { cleanup, cliBundle, filesUnder, planYaml, readRowsFile, simBundle, tempDir } from '../support/runner';

let cli = '';
let simJs = '';

before(async () => {
  [cli, simJs] = await Promise.all([cliBundle(), simBundle()]);
});

// Shapes the token-pattern redaction would never catch: no prefix, spaces, quotes, shell metacharacters.
const HF = `a b'c;$(x)`;
const GATEWAY = `gw "quoted" \\ back$HOME;|&`;
const API_KEY = `k3y; rm -rf ~ 'x' "y"`;

interface Seen {
  /** Every /proc/<pid>/cmdline seen while the run ran, of processes working in (or naming) the test's folder: the CLI and every server it started. */
  argvs: string[];
  /** Environments of server processes (their /proc/<pid>/environ). */
  environs: string[];
}

/** Every 20 ms, the command lines (and environments) of this user's processes that belong to the run. */
function watchProcesses(marker: string): { seen: Seen; stop: () => void } {
  const seen: Seen = { argvs: [], environs: [] };
  const read = (p: string): string | undefined => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  };
  const cwdOf = (pid: string): string => {
    try {
      return readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return '';
    }
  };
  const tick = (): void => {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      const cmd = read(`/proc/${pid}/cmdline`);
      if (!cmd || !(cmd.includes(marker) || cwdOf(pid).startsWith(marker))) continue;
      seen.argvs.push(cmd.replaceAll('\0', ' '));
      const env = read(`/proc/${pid}/environ`);
      if (env) seen.environs.push(env);
    }
  };
  const timer = setInterval(tick, 20);
  return { seen, stop: () => clearInterval(timer) };
}

function run(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, AUTOBENCH_SIM_JS: simJs, AUTOBENCH_NODE: process.execPath, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const forms = (v: string): string[] => [v, JSON.stringify(v).slice(1, -1), shlexQuote(v)];

function assertNowhere(value: string, texts: Array<[string, string]>): void {
  for (const [where, text] of texts) for (const f of forms(value)) assert.ok(!text.includes(f), `${JSON.stringify(f)} found in ${where}`);
}

const FRAMEWORKS = {
  sglang: 'server_command: python -m sglang.launch_server\nbase_server_flags:\n  model_path: Qwen/Qwen3-8B\n  context_length: 4096\nsearch_space: {}',
  vllm: 'base_server_flags:\n  max_model_len: 4096\nsearch_space: {}',
};

const plan = (secrets: string, frameworks: Partial<typeof FRAMEWORKS> = FRAMEWORKS): string =>
  `${planYaml({ benchmark: 'framework_set: [sglang, vllm]\nrequest_rates: [4]', frameworks })}\nsecrets:\n${secrets.replace(/^/gm, '  ')}\n`;

describe('secrets in a run (CLI, simulated engine)', () => {
  test('HF_TOKEN, an X-Api-Key header and an API key of unusual shapes: in no file, not on stderr, not in a server argv; delivered by environment', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'secrets.plan.yaml');
      writeFileSync(file, plan('api_key: AB_API_KEY\nheaders:\n  X-Api-Key: AB_GATEWAY'));
      const out = path.join(dir, 'run');
      const watch = watchProcesses(dir);
      const r = await run(['run', file, '--target', 'sim', '--out', out, '--sim-speed', '10', '--secret-env', 'HF_TOKEN'], dir, { HF_TOKEN: HF, AB_GATEWAY: GATEWAY, AB_API_KEY: API_KEY });
      watch.stop();
      assert.equal(r.code, 0, r.stderr);
      // Which names go where, never a value.
      assert.match(r.stderr, /secrets to sim: HF_TOKEN in every server's environment; AB_API_KEY as the servers' API key \(SGLang as --api-key .*; vLLM as VLLM_API_KEY\)/);
      assert.match(r.stderr, /AB_GATEWAY as the client's X-Api-Key header/);
      const rows = readRowsFile(out);
      for (const fw of ['sglang', 'vllm']) assert.ok(rows.some((x) => x.framework === fw && x.status === 'ok'), `${fw} measured with the key: ${JSON.stringify(rows.map((x) => [x.framework, x.status, x.failure_reason]))}`);
      const files = filesUnder(out).map((f): [string, string] => [f, readFileSync(f, 'latin1')]);
      assert.ok(files.length > 5);
      for (const v of [HF, GATEWAY, API_KEY]) assertNowhere(v, [...files, ['stderr', r.stderr], ['stdout', r.stdout]]);
      // Servers ran and were seen; HF_TOKEN and the header never in an argv. vLLM's key is in its environment, not its argv.
      assert.ok(watch.seen.argvs.some((a) => a.includes('sglang')) && watch.seen.argvs.some((a) => a.includes('vllm')), 'both servers were seen running');
      for (const a of watch.seen.argvs) assertNowhere(HF, [['argv', a]]);
      for (const a of watch.seen.argvs) assertNowhere(GATEWAY, [['argv', a]]);
      for (const a of watch.seen.argvs.filter((x) => x.includes('vllm'))) assertNowhere(API_KEY, [['vllm argv', a]]);
      assert.ok(watch.seen.environs.some((e) => e.split('\0').includes(`HF_TOKEN=${HF}`)), 'a server got HF_TOKEN in its environment');
      assert.ok(watch.seen.environs.some((e) => e.split('\0').includes(`VLLM_API_KEY=${API_KEY}`)), 'vLLM got its key as VLLM_API_KEY');
    } finally {
      cleanup(dir);
    }
  });

  test('SGLang whose --help lists --config gets its key in a private file, removed once it answered: not in its argv', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'config.plan.yaml');
      writeFileSync(file, plan('api_key: AB_API_KEY', { sglang: FRAMEWORKS.sglang }));
      const watch = watchProcesses(dir);
      const r = await run(['run', file, '--target', 'sim', '--out', path.join(dir, 'run'), '--frameworks', 'sglang', '--sim-speed', '10', '--help-dir', path.join(HELP, 'sglang', 'main-2026-07-18-ece02ffc9')], dir, { AB_API_KEY: API_KEY });
      watch.stop();
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /SGLang in a private --config file/);
      const rows = readRowsFile(path.join(dir, 'run'));
      assert.ok(rows.some((x) => x.framework === 'sglang' && x.status === 'ok'), JSON.stringify(rows.map((x) => [x.status, x.failure_reason])));
      const servers = watch.seen.argvs.filter((a) => a.includes('sglang.launch_server') && !a.includes('--help'));
      assert.ok(servers.length > 0 && servers.every((a) => / --config \/\S+\/server-config\.yaml/.test(a)), servers.join('\n'));
      for (const a of watch.seen.argvs) assertNowhere(API_KEY, [['argv', a]]);
      const files = [...new Set(servers.map((a) => / --config (\S+)/.exec(a)?.[1] as string))];
      for (const f of files) assert.throws(() => readFileSync(f), /ENOENT/, `${f} was removed`);
    } finally {
      cleanup(dir);
    }
  });

  test('a literal token in the plan stops the run with the file and line, without echoing it', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      const token = 'hf_AbCdEfGhIjKlMnOpQrStUv0123';
      const text = planYaml({ benchmark: 'framework_set: [vllm]\nrequest_rates: [4]', frameworks: { vllm: `base_server_flags:\n  max_model_len: 4096\n  api_key: ${token}\nsearch_space: {}` } });
      const file = path.join(dir, 'leaky.plan.yaml');
      writeFileSync(file, text);
      const line = text.split('\n').findIndex((l) => l.includes(token)) + 1;
      const r = await run(['run', file, '--target', 'sim', '--out', path.join(dir, 'run')], dir, {});
      assert.equal(r.code, 1);
      assert.ok(r.stderr.includes(`${file}:${line}: frameworks.vllm.base_server_flags.api_key:`), r.stderr);
      assert.match(r.stderr, /--allow-plan-secrets/);
      assert.ok(!r.stderr.includes(token) && !r.stdout.includes(token));
      // A key by name, whatever its shape, stops it too.
      writeFileSync(file, text.replace(token, 'plain-words-key'));
      const r2 = await run(['run', file, '--target', 'sim', '--out', path.join(dir, 'run2')], dir, {});
      assert.equal(r2.code, 1);
      assert.ok(r2.stderr.includes(`${file}:${line}: frameworks.vllm.base_server_flags.api_key: api_key holds a secret`), r2.stderr);
      assert.ok(!r2.stderr.includes('plain-words-key'));
    } finally {
      cleanup(dir);
    }
  });

  test('a server that wants another key: 401 unauthorized at its health check, in seconds', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    try {
      // vLLM's --api-key wins over VLLM_API_KEY: the server wants 'server-side-key', the client sends AB_API_KEY's value.
      const file = path.join(dir, 'wrong.plan.yaml');
      writeFileSync(file, plan('api_key: AB_API_KEY', { vllm: 'base_server_flags:\n  max_model_len: 4096\n  api_key: server-side-key\nsearch_space: {}' }));
      const t0 = Date.now();
      const r = await run(['run', file, '--target', 'sim', '--out', path.join(dir, 'run'), '--frameworks', 'vllm', '--allow-plan-secrets'], dir, { AB_API_KEY: API_KEY });
      const took = (Date.now() - t0) / 1000;
      assert.match(r.stderr + r.stdout, /401 unauthorized/);
      assert.ok(took < 30, `took ${took} s`);
      const rows = readRowsFile(path.join(dir, 'run'));
      assert.ok(rows.length > 0 && rows.every((x) => x.status !== 'ok'));
      assert.ok(rows.some((x) => String(x.failure_reason).includes('401 unauthorized')), JSON.stringify(rows.map((x) => x.failure_reason)));
      assertNowhere(API_KEY, [['stderr', r.stderr], ...filesUnder(path.join(dir, 'run')).map((f): [string, string] => [f, readFileSync(f, 'latin1')])]);
    } finally {
      cleanup(dir);
    }
  });

  test('a variable the secrets block names but the environment lacks: a clear error before anything starts', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'missing.plan.yaml');
      writeFileSync(file, plan('api_key: AB_NOT_SET_ANYWHERE'));
      const r = await run(['run', file, '--target', 'sim', '--out', path.join(dir, 'run')], dir, {});
      assert.equal(r.code, 1);
      assert.match(r.stderr, /\$AB_NOT_SET_ANYWHERE is named by the plan's secrets block but not set/);
    } finally {
      cleanup(dir);
    }
  });
});
