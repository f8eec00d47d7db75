// The POSIX shell scripts sent to a remote host: launch in a new session with the pgid reported, kill a group, stream a file or folder back, take a file in.
//
// Why this shape: sshd runs every exec request through the user's login shell and often drops
// `env` requests, so everything travels in one `sh -c '<script>'` command whose every variable
// value is shlexQuote'd. Secret values never enter that command: the script reads them from its
// stdin (`IFS= read -r NAME`), which the executor writes right after the channel opens, so they
// exist only in the environment of the launched process, never in an argv on the host or a log.
import { shlexJoin, shlexQuote } from '../core/candidates/shell';
import { LAUNCH_ID_ENV } from './descendants';
import { checkEnvName } from './types';

/** First line on stderr of every launched command: the process group to kill. */
export const PGID_MARKER = '@@autobench-pgid ';

export interface LaunchScriptSpec {
  argv: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Names read from stdin, one value per line, in this order. */
  secretNames?: readonly string[];
  cwd?: string;
  /** Server mode: stdout and stderr of the command come merged on stdout. */
  mergeOutput?: boolean;
}

/**
 * The script, for `sh -c`. It execs `setsid -w` (util-linux), so the command leads a new session
 * and process group without a controlling terminal (no SIGHUP when the channel goes), and the
 * channel's exit status is the command's. The inner shell prints the marker and execs the command,
 * so the reported pgid is also the server's own pid.
 */
export function launchScript(spec: LaunchScriptSpec): string {
  if (spec.argv.length === 0) throw new Error('empty argv');
  const lines: string[] = [];
  for (const name of spec.secretNames ?? []) {
    checkEnvName(name);
    lines.push(`IFS= read -r ${name} || exit 97`, `export ${name}`);
  }
  lines.push(`command -v setsid >/dev/null 2>&1 || { echo 'autobench: setsid not found on the host (util-linux)' >&2; exit 127; }`);
  if (spec.cwd !== undefined) lines.push(`cd -- ${shlexQuote(spec.cwd)} || exit 98`);
  for (const [k, v] of Object.entries(spec.env ?? {})) lines.push(`export ${checkEnvName(k)}=${shlexQuote(v)}`);
  const inner = `printf '%s%s\\n' ${shlexQuote(PGID_MARKER)} "$$" >&2; exec "$@"${spec.mergeOutput ? ' 2>&1' : ''}`;
  lines.push(`exec setsid -w sh -c ${shlexQuote(inner)} autobench ${shlexJoin(spec.argv)} </dev/null`);
  return lines.join('\n');
}

/** What the executor writes to the launch channel's stdin: one line per secret, in launchScript's order. */
export function secretsStdin(names: readonly string[], values: ReadonlyMap<string, string>): string {
  return names.map((n) => `${values.get(n) ?? ''}\n`).join('');
}

/**
 * TERM to the group, then poll until it is gone; KILL once the grace is over. Prints `gone` or
 * `killed` (or `left` if something survived KILL, i.e. an unkillable D-state process) as its last line.
 * Then what the group kill missed: the group leader's descendants as they were before TERM (by ppid, each
 * checked by its start time so a reused pid is left alone) and, with `launchId`, every process whose
 * environment carries LAUNCH_ID_ENV=<launchId> (descendants in a group or session of their own, TensorRT-LLM's
 * MPI workers): TERM, KILL after `min(grace, 5 s)`, one `leftover PID NAME` line each before the last line.
 */
export function killGroupScript(pgid: number, graceMs: number, launchId?: string): string {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  if (launchId !== undefined && !/^[A-Za-z0-9]+$/.test(launchId)) throw new Error(`bad launch id ${JSON.stringify(launchId)}`);
  const polls = Math.max(1, Math.ceil(graceMs / 100));
  const sweepPolls = Math.max(1, Math.ceil(Math.min(graceMs, 5000) / 100));
  return [
    `P=${pgid}`,
    `ID=${launchId ?? ''}`,
    // Zombies keep `kill -s 0` succeeding; where ps works, only live members count. (dash takes
    // `kill -s SIG -- -PGID` but not `kill -0 -- -PGID`.)
    `alive() { kill -s 0 -- -"$P" 2>/dev/null || return 1; o=$(ps -eo pgid=,stat= 2>/dev/null) || return 0; printf '%s\\n' "$o" | awk -v p="$P" '$1==p && $2 !~ /^Z/ {f=1} END {exit !f}'; }`,
    // A live process's start time (field 22 of /proc/PID/stat; its name may hold spaces, so count after the last ')').
    `st() { awk '{s=$0; sub(/^.*\\) /, "", s); split(s, f, " "); if (f[1] != "Z" && f[1] != "X") print f[20]}' /proc/"$1"/stat 2>/dev/null; }`,
    `nm() { awk '{s=$0; sub(/^[^(]*\\(/, "", s); sub(/\\)[^)]*$/, "", s); print s}' /proc/"$1"/stat 2>/dev/null; }`,
    // The tree below the leader before TERM, as pid:start pairs.
    `S=""`,
    `for d in $(ps -eo pid=,ppid= 2>/dev/null | awk -v r="$P" '{c[$2]=c[$2] " " $1} END {q=r; while (q != "") {n=split(q, a, " "); q=""; for (i=1; i<=n; i++) {m=split(c[a[i]], k, " "); for (j=1; j<=m; j++) {print k[j]; q=q " " k[j]}}}}'); do t=$(st "$d"); [ -n "$t" ] && S="$S $d:$t"; done`,
    `sweep() {`,
    `  L=""`,
    `  for x in $S; do p=\${x%%:*}; [ "$(st "$p")" = "\${x#*:}" ] && L="$L $p"; done`,
    // One grep over every environ file (-a: NUL-separated text); a fork or two per process takes seconds on a busy host.
    `  if [ -n "$ID" ]; then for f in $(grep -l -a -F -e "${LAUNCH_ID_ENV}=$ID" /proc/[0-9]*/environ 2>/dev/null); do p=\${f#/proc/}; p=\${p%/environ}; [ "$p" = "$$" ] && continue; case " $L " in *" $p "*) ;; *) [ -n "$(st "$p")" ] && L="$L $p" ;; esac; done; fi`,
    `  [ -n "$L" ] || return 0`,
    `  for p in $L; do echo "leftover $p $(nm "$p")"; kill -s TERM "$p" 2>/dev/null; done`,
    `  n=0; while :; do a=""; for p in $L; do [ -n "$(st "$p")" ] && a="$a $p"; done; [ -n "$a" ] || return 0; n=$((n+1)); [ "$n" -gt ${sweepPolls} ] && break; sleep 0.1; done`,
    `  for p in $a; do kill -s KILL "$p" 2>/dev/null; done`,
    `}`,
    `kill -s TERM -- -"$P" 2>/dev/null || { sweep; echo gone; exit 0; }`,
    `n=0`,
    `while alive; do n=$((n+1)); if [ "$n" -gt ${polls} ]; then break; fi; sleep 0.1; done`,
    `alive || { sweep; echo gone; exit 0; }`,
    `kill -s KILL -- -"$P" 2>/dev/null`,
    `n=0`,
    `while alive; do n=$((n+1)); if [ "$n" -gt 50 ]; then sweep; echo left; exit 0; fi; sleep 0.1; done`,
    `sweep`,
    `echo killed`,
  ].join('\n');
}

/** Streams a path back: `F\n` then the file's bytes, or `D\n` then a tar of the folder's contents. */
export function copyOutScript(path: string): string {
  const p = shlexQuote(path);
  return [
    `if [ -d ${p} ]; then printf 'D\\n'; exec tar -C ${p} -cf - .`,
    `elif [ -f ${p} ] && [ -r ${p} ]; then printf 'F\\n'; exec cat -- ${p}`,
    `else echo "autobench: cannot read ${path.replace(/[^A-Za-z0-9_@%+=:,./ -]/g, '?')}" >&2; exit 2; fi`,
  ].join('\n');
}

/**
 * Takes a file of `size` bytes on stdin: written beside its destination (same folder, so the rename is atomic),
 * renamed over it only when all of it arrived (a dropped connection ends stdin early, and cat exits 0 then);
 * the partial file is removed on any failure. Prints nothing on success.
 */
export function copyInScript(path: string, size: number): string {
  if (!path.startsWith('/')) throw new Error(`copyTo needs an absolute path on the target, not ${JSON.stringify(path)}`);
  if (!Number.isInteger(size) || size < 0) throw new Error(`bad file size ${size}`);
  const p = shlexQuote(path);
  const part = shlexQuote(`${path}.autobench-part`);
  const dir = shlexQuote(path.slice(0, path.lastIndexOf('/')) || '/');
  return [
    `mkdir -p -- ${dir} || exit 2`,
    `cat > ${part} || { rm -f -- ${part}; exit 2; }`,
    `n=$(($(wc -c < ${part}))) && [ "$n" -eq ${size} ] || { echo "autobench: received $n of ${size} bytes" >&2; rm -f -- ${part}; exit 3; }`,
    `mv -f -- ${part} ${p} || { rm -f -- ${part}; exit 2; }`,
  ].join('\n');
}

/** The whole command line for an exec request: the login shell runs `sh -c '<script>'`. */
export function shCommand(script: string): string {
  return `sh -c ${shlexQuote(script)}`;
}
