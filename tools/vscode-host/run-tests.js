// Runs an extension's integration suite inside real VS Code: code-server on 127.0.0.1, the workbench in headless
// Chromium, the extension and its tests passed through the workbench URL's development payload.
//
//   node tools/vscode-host/run-tests.js --vsix dist-vsix/autobench.vsix --tests out/vscode-suite [--workspace DIR]
//   node tools/vscode-host/run-tests.js --extensionDevelopmentPath DIR --tests DIR
// Other options: --timeout SECONDS (300), --verbose (echo all workbench log lines), --artifacts DIR (where the
// screenshots a test asks for go; default test-artifacts/vscode); env KEEP_TMP=1 keeps the temp folder.
// A test asks for a screenshot of the whole workbench by logging `autobench-screenshot NAME`: NAME.png appears in DIR.
// --restricted: Workspace Trust on and the workspace untrusted (Restricted Mode), as a user opening someone's repository
// sees it; without it trust is off (every workspace trusted).
//
// Exit status: 0 when the suite passed, 1 when it failed, 2 on timeout, 3 when the host could not start.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { unzip } from './unzip.js';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const say = (msg) => console.log(`[vscode-host ${elapsed()}] ${msg}`);

/** `--key value` or `--key=value`. */
function arg(key, fallback) {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${key}`) return argv[i + 1];
    if (argv[i].startsWith(`--${key}=`)) return argv[i].slice(key.length + 3);
  }
  return fallback;
}

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer().on('error', rej).listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

// Workbench chatter about its own connection and the (disabled) gallery; all of it still goes to workbench.log.
const NOISE = /^(Resolving connection token|Resolved connection token|Creating a socket|Ignoring fetching additional builtin|\[Service Worker\]|ChatSessionStore|Updating additional builtin extensions cache)/;
const verbose = process.argv.includes('--verbose');

let server;
let browser;
let tmp;

async function main() {
  // Short root: VS Code puts IPC sockets under TMPDIR and socket paths must stay under 108 bytes.
  tmp = mkdtempSync(join(process.env.VSCODE_TEST_TMP || tmpdir(), 'vsch-'));
  const vsix = arg('vsix');
  let extDev = arg('extensionDevelopmentPath');
  if (vsix) {
    // Run what the package contains, not the source tree: a file missing from the .vsix fails the suite.
    const names = unzip(resolve(vsix), join(tmp, 'vsix'));
    extDev = join(tmp, 'vsix', 'extension');
    say(`unpacked ${vsix}: ${names.length} files -> ${extDev}`);
  }
  if (!extDev || !existsSync(join(extDev, 'package.json'))) throw new Error('need --vsix FILE or --extensionDevelopmentPath DIR (with a package.json)');
  extDev = resolve(extDev);
  const tests = resolve(arg('tests', arg('extensionTestsPath', 'out/vscode-suite')));
  if (!existsSync(tests)) throw new Error(`tests not found: ${tests} (build them first)`);
  let workspace = arg('workspace');
  if (workspace) {
    // A copy, so the suite may write into it without touching the caller's files.
    cpSync(resolve(workspace), join(tmp, 'ws'), { recursive: true });
  } else mkdirSync(join(tmp, 'ws'));
  workspace = join(tmp, 'ws');

  if (!existsSync(join(HERE, 'node_modules', 'code-server', 'out', 'node', 'entry.js'))) {
    throw new Error('code-server is not installed: run tools/vscode-host/setup.sh first');
  }
  const port = await freePort();
  const restricted = process.argv.includes('--restricted');
  // Trust on, never asked at startup: the folder opens untrusted (Restricted Mode).
  const userSettings = restricted
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never', 'security.workspace.trust.untrustedFiles': 'open' }
    : {};
  mkdirSync(join(tmp, 'ud', 'User'), { recursive: true });
  writeFileSync(join(tmp, 'ud', 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  // A home of its own: the suite may write ~/.ssh/config and known_hosts (its loopback sshd) without touching the user's.
  mkdirSync(join(tmp, 'home'), { recursive: true });
  const env = {
    ...process.env,
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(tmp, 'cfg'),
    XDG_DATA_HOME: join(tmp, 'data'),
    XDG_CACHE_HOME: join(tmp, 'cache'),
    EXTENSIONS_GALLERY: '{}', // no marketplace: no outbound lookups
  };
  writeFileSync(join(tmp, 'config.yaml'), 'auth: none\n');
  const args = [
    require.resolve('code-server/out/node/entry.js'),
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--config', join(tmp, 'config.yaml'),
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir', join(tmp, 'ud'),
    '--extensions-dir', join(tmp, 'ext'),
    '--disable-telemetry',
    ...(restricted ? [] : ['--disable-workspace-trust']),
  ];
  // Own process group: code-server forks its VS Code server, extension host and watchers; all go down together.
  server = spawn(process.env.CODE_SERVER_NODE || process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let slog = '';
  for (const s of [server.stdout, server.stderr]) s.on('data', (d) => { slog += d; });
  const serverExit = new Promise((res) => server.once('exit', (c, sig) => res(`${c ?? sig}`)));
  await new Promise((res, rej) => {
    const iv = setInterval(() => { if (/HTTP server listening/.test(slog)) { clearInterval(iv); res(); } }, 50);
    void serverExit.then((c) => { clearInterval(iv); rej(new Error(`code-server exited ${c}:\n${slog}`)); });
  });
  say(`code-server listening on 127.0.0.1:${port}`);

  const { chromium } = require('playwright-core');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    env,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const artifacts = resolve(arg('artifacts', join('test-artifacts', 'vscode')));
  let exit;
  const exited = new Promise((r) => (exit = r));
  let summary;
  // The workbench forwards the extension host's console here, and calls codeAutomationExit when the tests finish.
  const hostLog = [];
  await page.exposeFunction('codeAutomationLog', (_type, logArgs) => {
    const line = (logArgs || []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    hostLog.push(line);
    const shot = /^autobench-screenshot ([\w.-]+)$/.exec(line);
    if (shot) {
      mkdirSync(artifacts, { recursive: true });
      void page.screenshot({ path: join(artifacts, `${shot[1]}.png`) }).catch((e) => console.error(`vscode-host: screenshot ${shot[1]}: ${e.message}`));
    }
    const m = /^(\d+) passed, (\d+) failed$/m.exec(line);
    if (m) summary = { passed: +m[1], failed: +m[2] };
    if (verbose || !NOISE.test(line)) console.log(line);
  });
  await page.exposeFunction('codeAutomationExit', (code) => exit(code));
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [['extensionDevelopmentPath', remote(extDev)], ['extensionTestsPath', remote(tests)], ['skipWelcome', 'true']];
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  say('workbench loaded; waiting for the suite');

  const timeoutS = Number(arg('timeout', '300'));
  let timer;
  const code = await Promise.race([
    exited,
    serverExit.then((c) => `server-exit:${c}`),
    new Promise((r) => { timer = setTimeout(() => r('timeout'), timeoutS * 1000); }),
  ]);
  clearTimeout(timer);
  writeFileSync(join(tmp, 'server.log'), slog);
  writeFileSync(join(tmp, 'workbench.log'), hostLog.join('\n'));
  if (code === 'timeout' || String(code).startsWith('server-exit')) {
    await page.screenshot({ path: join(tmp, 'failure.png') }).catch(() => {});
    console.error(`vscode-host: ${code === 'timeout' ? `no result after ${timeoutS}s` : `code-server stopped (${code})`}; ` +
      `screenshot, server.log and workbench.log in ${tmp}\n--- server log tail ---\n${slog.slice(-3000)}`);
    return 2;
  }
  if (!summary) console.error('vscode-host: the suite printed no "N passed, M failed" line');
  say(`suite finished: ${summary ? `${summary.passed} passed, ${summary.failed} failed` : 'no counts'}, extension host exit ${code}`);
  if (summary && summary.passed === 0) console.error('vscode-host: the suite ran no test');
  return code === 0 && summary && summary.failed === 0 && summary.passed > 0 ? 0 : 1;
}

async function cleanup() {
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null && server.signalCode === null) {
    const gone = new Promise((r) => server.once('exit', r));
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
    const t = setTimeout(() => { try { process.kill(-server.pid, 'SIGKILL'); } catch { /* already gone */ } }, 5000);
    await gone;
    clearTimeout(t);
  }
  // Children that outlived code-server's own process (same group) get the signal too.
  if (server) { try { process.kill(-server.pid, 'SIGKILL'); } catch { /* none left */ } }
}

for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { void cleanup().then(() => process.exit(130)); });

main()
  .catch((e) => { console.error(`vscode-host: ${e instanceof Error ? e.message : e}`); return 3; })
  .then(async (code) => {
    await cleanup();
    if (tmp && code === 0 && !process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
    else if (tmp) console.error(`vscode-host: logs kept in ${tmp}`);
    say(`exit ${code}`);
    process.exit(code);
  });
