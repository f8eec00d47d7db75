// Installs the system packages the tests need (sshd for the ssh suites, Chromium for the webview and VS Code suites, the docker CLI for the container argv check, Slurm with slurmdbd and MariaDB for the slurm suites) with Debian's apt when they are missing; as root it installs them, otherwise it says the one command to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** What each suite needs, how to tell it is there, and the Debian packages that bring it. */
const NEEDS = [
  { what: 'sshd (ssh suites)', present: () => existsSync('/usr/sbin/sshd') && onPath('ssh'), packages: ['openssh-server', 'openssh-client'] },
  { what: 'Chromium (webview and VS Code suites)', present: () => existsSync(process.env.AUTOBENCH_CHROMIUM ?? '/usr/bin/chromium'), packages: ['chromium'] },
  { what: 'the docker CLI (container argv check)', present: () => onPath('docker'), packages: ['docker.io'] },
  // tools/slurm-host/setup.sh runs them (it installs nothing); slurmdbd and MariaDB are what make `sacct` work.
  {
    what: 'Slurm with munge and accounting (slurm suites)',
    present: () =>
      ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/sbin/munged', '/usr/sbin/slurmdbd', '/usr/sbin/mariadbd'].every((p) => existsSync(p)) &&
      ['sbatch', 'sacct', 'mariadb-install-db', 'mariadb-admin'].every(onPath),
    packages: ['slurm-wlm', 'munge', 'slurmdbd', 'mariadb-server'],
  },
];

const missing = NEEDS.filter((n) => !n.present());
if (missing.length === 0) process.exit(0);

const packages = missing.flatMap((n) => n.packages);
const command = `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`;
console.error(`provision: missing ${missing.map((n) => n.what).join(', ')}`);
if (process.getuid?.() !== 0) {
  console.error(`provision: not root, so nothing was installed. Run once:\n  sudo sh -c '${command}'\nthen run the tests again.`);
  process.exit(1);
}
if (!onPath('apt-get')) {
  console.error(`provision: no apt-get on this machine; install ${packages.join(', ')} with its package manager, then run the tests again.`);
  process.exit(1);
}
console.error(`provision: apt-get install ${packages.join(' ')}`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...packages]]) {
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (r.status !== 0) {
    console.error(`provision: apt-get ${args[0]} failed (exit ${r.status}); run it by hand: ${command}`);
    process.exit(1);
  }
}
const still = missing.filter((n) => !n.present());
if (still.length > 0) {
  console.error(`provision: still missing after the install: ${still.map((n) => n.what).join(', ')}`);
  process.exit(1);
}
