#!/usr/bin/env bash
# Runs the real Slurm cluster the Slurm test suites submit jobs to: slurmctld and three slurmd with fake GPUs as GRES,
# munge, and slurmdbd on its own MariaDB so that `sacct` reports jobs' start and end times. Partition `autobench` (the
# default) is the one node n0; partition `autobench2n` is the two nodes n1 and n2, for jobs that span nodes. Each node
# is a slurmd of its own on this machine (Slurm's "multiple slurmd": `slurmd -N NAME`; Debian builds Slurm with
# --enable-multiple-slurmd) in a network namespace of its own, joined by a veth pair to a bridge in the root namespace
# (bridge 10.213.0.1/24; n0 .11, n1 .12, n2 .13: the NodeAddr of each). So, as on a real cluster, a node is reached
# from the login host (this machine's root namespace) at an address that is not loopback, and a server bound to
# 127.0.0.1 on a node answers only there. slurmctld (SlurmctldHost's address is the bridge's) and srun run in the root
# namespace; munge is a unix socket and the files are one file system, as a cluster's shared one.
#
#   tools/slurm-host/setup.sh start     start what is not running (idempotent; a changed setting restarts slurmctld/slurmd)
#   tools/slurm-host/setup.sh stop      cancel every job, stop the daemons this script started, remove the namespaces,
#                                       veths and bridge
#   tools/slurm-host/setup.sh restart   stop, then start (job ids and accounting are kept)
#   tools/slurm-host/setup.sh status    exit 0 only when the node is usable and sacct answers (any user may run it)
#   tools/slurm-host/setup.sh clean     stop, then delete the whole state directory (accounting database included)
#
# It installs nothing: `node scripts/provision.mjs` (run by `npm test`) installs slurm-wlm, munge, slurmdbd and
# mariadb-server. Made for Debian 12 (Slurm 22.05) as root; it starts every daemon itself, so it needs no systemd
# (checked where PID 1 is no init at all).
#
# The network: namespaces abslurm-NODE (made with `ip netns add`, entered with `nsenter --net`, which keeps the mount
# namespace and so the cgroup hierarchies proctrack/cgroup needs), veths abh-NODE (root side, on the bridge) and abn-NODE
# (inside, renamed eth0), bridge abslurm0. Traffic goes only between this machine's own namespaces.
#
# Everything lives under $AUTOBENCH_SLURM_DIR (default /var/lib/autobench-slurm): etc/ (slurm.conf, gres.conf,
# cgroup.conf, slurmdbd.conf), dev/ (the fake GPUs), run/ (pid files), log/, state/ (slurmctld), spool/ (slurmd),
# mariadb/ (the accounting database, its socket and log). Outside it, and only these: /etc/slurm/slurm.conf, a
# symlink to etc/slurm.conf so that sbatch, squeue, sacct... need no SLURM_CONF; munged with Debian's key in
# /etc/munge (started when not running, and then stopped by `stop`).
#
# Settings (env): AUTOBENCH_SLURM_GPUS (fake GPUs of localhost, default 2), AUTOBENCH_SLURM_GPUS_2N (fake GPUs of
# n1 and of n2, default 2), AUTOBENCH_SLURM_CPUS (CPUs advertised, default 16:
# more than the machine has, so that GPUs and not cores limit how many jobs run), AUTOBENCH_SLURM_PROCTRACK
# (cgroup | linuxproc; default cgroup where the cgroup v1 freezer is mounted), AUTOBENCH_SLURM_DB_PORT (MariaDB on
# 127.0.0.1, default 3307, away from a system MariaDB's 3306), AUTOBENCH_SLURM_DIR.
set -euo pipefail

D=${AUTOBENCH_SLURM_DIR:-/var/lib/autobench-slurm}
GPUS=${AUTOBENCH_SLURM_GPUS:-2}
GPUS_2N=${AUTOBENCH_SLURM_GPUS_2N:-2}
CPUS=${AUTOBENCH_SLURM_CPUS:-16}
DB_PORT=${AUTOBENCH_SLURM_DB_PORT:-3307}
CLUSTER=autobench
PARTITION=autobench
# Node names are no host names: their NodeAddr is how they are reached. Each slurmd keeps a port of its own (6817
# slurmctld, 6819 slurmdbd), though each has its own address too.
NODE=n0
PARTITION_2N=autobench2n
NODES_2N=(n1 n2)
ALL_NODES=("$NODE" "${NODES_2N[@]}")
declare -A NODE_PORT=([n0]=6818 [n1]=6821 [n2]=6822)
NET_PREFIX=10.213.0
BRIDGE=abslurm0
BRIDGE_ADDR=$NET_PREFIX.1
declare -A NODE_ADDR=([n0]=$NET_PREFIX.11 [n1]=$NET_PREFIX.12 [n2]=$NET_PREFIX.13)
ETC=$D/etc RUN=$D/run LOG=$D/log DB=$D/mariadb
CONF=$ETC/slurm.conf
CLIENT_CONF=/etc/slurm/slurm.conf   # Debian's compiled-in path
MARK="# Written by autobench tools/slurm-host/setup.sh"
MUNGE_PID=/run/munge/munged.pid

say() { echo "slurm-host: $*"; }
die() { echo "slurm-host: error: $*" >&2; exit 1; }

[[ $GPUS =~ ^[1-9][0-9]?$ ]] || die "AUTOBENCH_SLURM_GPUS must be a number from 1 to 99 (got '$GPUS')"
[[ $GPUS_2N =~ ^[1-9][0-9]?$ ]] || die "AUTOBENCH_SLURM_GPUS_2N must be a number from 1 to 99 (got '$GPUS_2N')"
[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "AUTOBENCH_SLURM_CPUS must be a positive number (got '$CPUS')"
[[ $DB_PORT =~ ^[1-9][0-9]*$ ]] || die "AUTOBENCH_SLURM_DB_PORT must be a port number (got '$DB_PORT')"

# A process counts as running unless it is gone or a zombie: where PID 1 is not an init it reaps late, and kill -0
# succeeds on a zombie.
running() {
  local state
  state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
alive() { [ -s "$1" ] && running "$(cat "$1")"; }
# Polls a command every 0.1 s, at most $1 times.
poll() {
  local tries=$1 i
  shift
  for ((i = 0; i < tries; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

check_packages() {
  local missing=() plugins
  [ -x /usr/sbin/slurmctld ] || missing+=("slurmctld (package slurmctld)")
  [ -x /usr/sbin/slurmd ] || missing+=("slurmd (package slurmd)")
  command -v sbatch >/dev/null && command -v sacct >/dev/null || missing+=("sbatch/sacct (package slurm-client)")
  [ -x /usr/sbin/munged ] || missing+=("munged (package munge)")
  [ -x /usr/sbin/slurmdbd ] || missing+=("slurmdbd (package slurmdbd)")
  plugins=$(echo /usr/lib/*/slurm-wlm/accounting_storage_mysql.so)
  [ -e "$plugins" ] || missing+=("Slurm's MySQL plugin (package slurm-wlm-mysql-plugin)")
  [ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null || missing+=("mariadbd (package mariadb-server)")
  command -v mariadb >/dev/null && command -v mariadb-admin >/dev/null || missing+=("mariadb client (package mariadb-client)")
  command -v ip >/dev/null || missing+=("ip (package iproute2)")
  command -v nsenter >/dev/null || missing+=("nsenter (package util-linux)")
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'slurm-host: error: missing %s\n' "${missing[@]}" >&2
    die "install them with: apt-get install -y --no-install-recommends slurm-wlm munge slurmdbd mariadb-server (node scripts/provision.mjs does it)"
  fi
}

need_root() { [ "$(id -u)" = 0 ] || die "'$1' must run as root: sudo $0 $1"; }

# Replaces $1 with $1.new when they differ; returns 0 when it did.
replace() {
  if [ -f "$1" ] && cmp -s "$1" "$1.new"; then
    rm -f "$1.new"
    return 1
  fi
  mv "$1.new" "$1"
}

start_munge() {
  install -d -o munge -g munge -m 0700 /etc/munge /var/log/munge
  install -d -o munge -g munge -m 0711 /var/lib/munge
  # systemd's tmpfiles would create it; nothing else does.
  install -d -o munge -g munge -m 0755 /run/munge
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
  if [ ! -s /etc/munge/munge.key ]; then # Debian's postinst normally made one
    say "creating /etc/munge/munge.key"
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  say "starting munged"
  rm -f "$MUNGE_PID"
  runuser -u munge -- /usr/sbin/munged 9>&-
  touch "$RUN/munged.ours"
  poll 50 sh -c 'munge -n | unmunge' || die "munged does not answer; see /var/log/munge/munged.log"
}

fake_gpus() {
  # Slurm 22.05 drops a gpu GRES without File= (and then drains the node: "gres/gpu count reported lower than
  # configured"), so every fake GPU is a device file: a character device like /dev/null, which slurmd accepts
  # without complaint. Named gpuN, they give jobs CUDA_VISIBLE_DEVICES=N.
  install -d -m 0755 "$D/dev"
  # The nodes are one machine: n1 and n2 name the same files as localhost (each node's GRES is its own all the same).
  local i f max=$((GPUS > GPUS_2N ? GPUS : GPUS_2N))
  for ((i = 0; i < max; i++)); do
    [ -c "$D/dev/gpu$i" ] || { rm -f "$D/dev/gpu$i"; mknod -m 0666 "$D/dev/gpu$i" c 1 3; }
  done
  for f in "$D"/dev/gpu*; do
    [ "${f##*/gpu}" -lt "$max" ] || rm -f "$f"
  done
}

# proctrack/cgroup kills every process of a cancelled job, double-forked ones included (linuxproc follows parent
# links, so a process whose parent exited survives scancel). Slurm 22.05's cgroup/v1 plugin needs the freezer
# hierarchy; without systemd its cgroup/v2 plugin is not usable, so elsewhere we fall back to linuxproc.
choose_proctrack() {
  PROCTRACK=${AUTOBENCH_SLURM_PROCTRACK:-}
  if [ -z "$PROCTRACK" ]; then
    if grep -qs ' /sys/fs/cgroup/freezer cgroup .*freezer' /proc/mounts; then
      PROCTRACK=cgroup
    else
      PROCTRACK=linuxproc
      say "proctrack/linuxproc: no cgroup v1 freezer at /sys/fs/cgroup/freezer (needed by Slurm 22.05's proctrack/cgroup here); a job's double-forked processes may outlive scancel"
    fi
  fi
  case $PROCTRACK in cgroup | linuxproc) ;; *) die "AUTOBENCH_SLURM_PROCTRACK must be cgroup or linuxproc (got '$PROCTRACK')" ;; esac
}

CONFIG_CHANGED=0
write_config() {
  local mem gpu_files gpu_files_2n n
  mem=$(awk '/^MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  gpu_files=$D/dev/gpu0
  [ "$GPUS" = 1 ] || gpu_files="$D/dev/gpu[0-$((GPUS - 1))]"
  gpu_files_2n=$D/dev/gpu0
  [ "$GPUS_2N" = 1 ] || gpu_files_2n="$D/dev/gpu[0-$((GPUS_2N - 1))]"
  cat >"$CONF.new" <<EOF
$MARK start; edits are overwritten.
ClusterName=$CLUSTER
# The nodes reach slurmctld at the bridge's address (its name: what slurmctld checks it is; it listens on every address).
SlurmctldHost=localhost($BRIDGE_ADDR)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/$PROCTRACK
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$RUN/slurmctld.pid
# %n: the node's name, one pid file, log and spool directory per slurmd.
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SchedulerType=sched/backfill
# A job behind one that cannot start waits for the backfill pass: every 30 s by default, every second here.
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
# scancel: SIGTERM, then SIGKILL after this many seconds.
KillWait=10
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu
# Lets slurmd advertise more CPUs than the machine has.
SlurmdParameters=config_overrides
# Each node at the address of its own namespace.
$(for n in "${ALL_NODES[@]}"; do
    g=$GPUS_2N
    [ "$n" != "$NODE" ] || g=$GPUS
    echo "NodeName=$n NodeAddr=${NODE_ADDR[$n]} Port=${NODE_PORT[$n]} CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$mem Gres=gpu:$g State=UNKNOWN"
  done)
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=7-00:00:00 State=UP
PartitionName=$PARTITION_2N Nodes=$(IFS=,; echo "${NODES_2N[*]}") MaxTime=7-00:00:00 State=UP
EOF
  cat >"$ETC/gres.conf.new" <<EOF
$MARK start.
AutoDetect=off
NodeName=$NODE Name=gpu File=$gpu_files
$(for n in "${NODES_2N[@]}"; do echo "NodeName=$n Name=gpu File=$gpu_files_2n"; done)
EOF
  cat >"$ETC/cgroup.conf.new" <<EOF
$MARK start: read with ProctrackType=proctrack/cgroup, which only tracks processes here.
CgroupPlugin=cgroup/v1
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
  cat >"$ETC/slurmdbd.conf.new" <<EOF
$MARK start.
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
SlurmUser=root
LogFile=$LOG/slurmdbd.log
PidFile=$RUN/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$(cat "$ETC/db-password")
StorageLoc=slurm_acct_db
EOF
  replace "$CONF" && CONFIG_CHANGED=1
  replace "$ETC/gres.conf" && CONFIG_CHANGED=1
  replace "$ETC/cgroup.conf" && CONFIG_CHANGED=1
  replace "$ETC/slurmdbd.conf" && stop_pidfile "$RUN/slurmdbd.pid" slurmdbd
  chmod 0644 "$CONF" "$ETC/gres.conf" "$ETC/cgroup.conf"
  chmod 0600 "$ETC/slurmdbd.conf" # slurmdbd refuses a readable file that holds a password

  if [ -L "$CLIENT_CONF" ] && [ "$(readlink "$CLIENT_CONF")" = "$CONF" ]; then return 0; fi
  if [ -e "$CLIENT_CONF" ] && ! grep -qF "$MARK" "$CLIENT_CONF"; then
    die "$CLIENT_CONF exists and was not written by this script (a real cluster's configuration?); move it away first"
  fi
  install -d -m 0755 /etc/slurm
  ln -sfn "$CONF" "$CLIENT_CONF"
}

start_mariadb() {
  install -d -o mysql -g mysql -m 0750 "$DB"
  if [ ! -d "$DB/data/mysql" ]; then
    say "creating the accounting database in $DB/data"
    rm -rf "$DB/data"
    mariadb-install-db --no-defaults --user=mysql --datadir="$DB/data" --auth-root-authentication-method=socket \
      --skip-test-db --skip-name-resolve >"$DB/install.log" 2>&1 || die "mariadb-install-db failed; see $DB/install.log"
  fi
  if ! alive "$DB/mariadbd.pid"; then
    say "starting mariadbd on 127.0.0.1:$DB_PORT"
    # Its own instance (--no-defaults: nothing from /etc/mysql), so that `clean` can wipe it and a system MariaDB
    # is left alone. The innodb settings are the least slurmdbd accepts without logging an error at start (half its
    # recommendation; the pool is allocated as it fills).
    setsid /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$DB/data" --socket="$DB/mariadbd.sock" \
      --pid-file="$DB/mariadbd.pid" --log-error="$DB/mariadb.err" --bind-address=127.0.0.1 --port="$DB_PORT" \
      --skip-name-resolve --innodb-buffer-pool-size=512M --innodb-log-file-size=64M --innodb-lock-wait-timeout=900 \
      </dev/null >/dev/null 2>&1 9>&- &
    poll 300 mariadb-admin --no-defaults --socket="$DB/mariadbd.sock" ping || die "mariadbd did not start; see $DB/mariadb.err"
  fi
  mariadb --no-defaults --socket="$DB/mariadbd.sock" -u root <<EOF
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$(cat "$ETC/db-password")';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
EOF
}

start_slurmdbd() {
  if ! alive "$RUN/slurmdbd.pid"; then
    say "starting slurmdbd"
    /usr/sbin/slurmdbd 9>&-
  fi
  # An empty database gets its tables on the first start: a few seconds.
  poll 300 sacctmgr -n show cluster || die "slurmdbd does not answer; see $LOG/slurmdbd.log"
  # slurmctld registers with slurmdbd as this cluster, which must exist by then.
  if [ -z "$(sacctmgr -n -P show cluster "$CLUSTER" format=cluster)" ]; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
  fi
}

# The network of the nodes (see the head of this file): each step checks first, so that `start` is idempotent and
# repairs what is missing (a veth whose namespace went away, an address dropped).
netns_of() { echo "abslurm-$1"; }
net_up() {
  local n ns
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  # (Tested on the whole output: with pipefail, `ip | grep -q` fails when grep stops reading early.)
  [[ $(ip -o addr show dev "$BRIDGE") == *" $BRIDGE_ADDR/24 "* ]] || ip addr add "$BRIDGE_ADDR/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for n in "${ALL_NODES[@]}"; do
    ns=$(netns_of "$n")
    [ -e "/run/netns/$ns" ] || ip netns add "$ns"
    if ! ip -n "$ns" link show "abn-$n" >/dev/null 2>&1; then
      ip link del "abh-$n" 2>/dev/null || true
      ip link add "abh-$n" type veth peer name "abn-$n"
      ip link set "abn-$n" netns "$ns"
    fi
    ip link set "abh-$n" master "$BRIDGE"
    ip link set "abh-$n" up
    ip -n "$ns" link set lo up
    [[ $(ip -n "$ns" -o addr show dev "abn-$n") == *" ${NODE_ADDR[$n]}/24 "* ]] || ip -n "$ns" addr add "${NODE_ADDR[$n]}/24" dev "abn-$n"
    ip -n "$ns" link set "abn-$n" up
  done
}
# Whether node $1's namespace reaches slurmctld over the bridge.
reaches_ctld() { nsenter --net="/run/netns/$(netns_of "$1")" timeout 2 bash -c "exec 3<>/dev/tcp/$BRIDGE_ADDR/6817"; }
# Deletes the veths (a namespace's end goes with it), the namespaces and the bridge; what is already gone is skipped.
net_down() {
  local n ns
  for n in "${ALL_NODES[@]}"; do
    ns=$(netns_of "$n")
    ip link del "abh-$n" 2>/dev/null || true
    if [ -e "/run/netns/$ns" ]; then
      say "removing network namespace $ns"
      ip netns del "$ns"
    fi
  done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    say "removing bridge $BRIDGE"
    ip link del "$BRIDGE"
  fi
}
# Whether process $1 runs in node $2's network namespace.
in_netns() {
  [ -e "/run/netns/$(netns_of "$2")" ] && [ "$(stat -L -c %i "/proc/$1/ns/net" 2>/dev/null)" = "$(stat -L -c %i "/run/netns/$(netns_of "$2")")" ]
}

node_state() { timeout 10 sinfo -h -n "$1" -o '%T' 2>/dev/null | head -1; }
node_usable() { [[ "$(node_state "$1")" =~ ^(idle|mixed|allocated|completing) ]]; }
slurmd_pid() { echo "$RUN/slurmd-$1.pid"; }
any_slurmd() {
  local n
  alive "$RUN/slurmd.pid" && return 0 # one started by this script before the two-node partition
  alive "$RUN/slurmd-localhost.pid" && return 0 # the node n0 was called before the namespaces
  for n in "${ALL_NODES[@]}"; do alive "$(slurmd_pid "$n")" && return 0; done
  return 1
}
stop_slurmds() {
  local n
  stop_pidfile "$RUN/slurmd.pid" slurmd
  stop_pidfile "$RUN/slurmd-localhost.pid" "slurmd of localhost"
  for n in "${ALL_NODES[@]}"; do stop_pidfile "$(slurmd_pid "$n")" "slurmd of $n"; done
}

start_slurm() {
  local n
  if [ "$CONFIG_CHANGED" = 1 ] && { alive "$RUN/slurmctld.pid" || any_slurmd; }; then
    # A changed node layout (CPUs, GPUs) aborts and requeues the jobs running on it.
    say "configuration changed: restarting slurmctld and slurmd"
    stop_slurmds
    stop_pidfile "$RUN/slurmctld.pid" slurmctld
  fi
  if ! alive "$RUN/slurmctld.pid"; then
    say "starting slurmctld"
    /usr/sbin/slurmctld 9>&-
  fi
  poll 100 sh -c 'scontrol ping | grep -q "is UP"' || die "slurmctld is not up; see $LOG/slurmctld.log"
  for n in "${ALL_NODES[@]}"; do
    poll 20 reaches_ctld "$n" || die "node $n (network namespace $(netns_of "$n"), ${NODE_ADDR[$n]}) cannot reach slurmctld at $BRIDGE_ADDR:6817"
  done
  for n in "${ALL_NODES[@]}"; do
    if alive "$(slurmd_pid "$n")" && ! in_netns "$(cat "$(slurmd_pid "$n")")" "$n"; then
      say "slurmd of node $n runs outside its network namespace: restarting it"
      stop_pidfile "$(slurmd_pid "$n")" "slurmd of $n"
    fi
    if ! alive "$(slurmd_pid "$n")"; then
      say "starting slurmd of node $n in network namespace $(netns_of "$n") (${NODE_ADDR[$n]})"
      install -d -m 0755 "$D/spool/$n"
      nsenter --net="/run/netns/$(netns_of "$n")" /usr/sbin/slurmd -N "$n" 9>&-
    fi
  done
  for n in "${ALL_NODES[@]}"; do
    poll 100 node_usable "$n" || {
      # Left drained or down by an earlier run (a bad config, a kill): slurmd is fine now, so put it back.
      scontrol update nodename="$n" state=resume >/dev/null 2>&1 || true
      poll 50 node_usable "$n" || {
        scontrol show node "$n" 2>&1 | grep -E 'State=|Reason=' >&2 || true
        die "node $n is '$(node_state "$n")'; see $LOG/slurmd-$n.log and $LOG/slurmctld.log"
      }
    }
  done
}

start() {
  need_root start
  check_packages
  choose_proctrack
  install -d -m 0755 "$ETC" "$RUN" "$LOG" "$D/state" "$D/spool"
  [ -s "$ETC/db-password" ] || (umask 077 && head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$ETC/db-password")
  start_munge
  fake_gpus
  write_config
  start_mariadb
  start_slurmdbd
  net_up
  start_slurm
  say "up: partition $PARTITION (node $NODE at ${NODE_ADDR[$NODE]}, gpu:$GPUS), partition $PARTITION_2N (nodes ${NODES_2N[*]} at $(for n in "${NODES_2N[@]}"; do printf '%s ' "${NODE_ADDR[$n]}"; done)gpu:$GPUS_2N each), $CPUS CPUs a node, proctrack/$PROCTRACK, accounting in $DB"
}

stop_pidfile() {
  local pid
  if alive "$1"; then
    pid=$(cat "$1")
    say "stopping $2 (pid $pid)"
    kill "$pid" 2>/dev/null || true
    # slurmctld saves its state first: up to a few seconds.
    if ! poll 150 eval "! running $pid"; then
      say "$2 still running after 15 s: SIGKILL"
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$1"
}

stop() {
  need_root stop
  if alive "$RUN/slurmctld.pid" && [ -e "$CONF" ]; then
    # Jobs outlive slurmd (their slurmstepd keeps running), so they are cancelled first.
    local jobs
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      say "cancelling jobs $(echo "$jobs" | tr '\n' ' ')"
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      poll 200 sh -c '[ -z "$(squeue -h -o %i)" ]' || say "jobs still listed after 20 s: $(squeue -h -o '%i %T' | tr '\n' ' ')"
    fi
  fi
  stop_slurmds
  stop_pidfile "$RUN/slurmctld.pid" slurmctld
  net_down
  stop_pidfile "$RUN/slurmdbd.pid" slurmdbd
  stop_pidfile "$DB/mariadbd.pid" mariadbd
  if [ -e "$RUN/munged.ours" ]; then
    stop_pidfile "$MUNGE_PID" munged
    rm -f "$RUN/munged.ours"
  fi
}

clean() {
  need_root clean
  stop
  if [ -L "$CLIENT_CONF" ] && [ "$(readlink "$CLIENT_CONF")" = "$CONF" ]; then rm -f "$CLIENT_CONF"; fi
  # Keep the lock file: another start may be waiting on it.
  find "$D" -mindepth 1 -maxdepth 1 ! -name lock -exec rm -rf {} +
  say "removed $D"
}

status() {
  local f n want ok=0 state gres
  for f in /run/munge/munged.pid "$DB/mariadbd.pid" "$RUN/slurmdbd.pid" "$RUN/slurmctld.pid" "${ALL_NODES[@]/#/$RUN/slurmd-}"; do
    f=${f%.pid}.pid
    if alive "$f"; then echo "$(basename "$f" .pid): running (pid $(cat "$f"))"; else echo "$(basename "$f" .pid): not running"; fi
  done
  if [ ! -L "$CLIENT_CONF" ] || [ "$(readlink "$CLIENT_CONF")" != "$CONF" ]; then
    echo "$CLIENT_CONF does not point to $CONF"
    return 1
  fi
  if ! alive "$RUN/slurmctld.pid"; then return 1; fi
  for n in "${ALL_NODES[@]}"; do
    # (Only root may look into another process's namespaces.)
    if [ "$(id -u)" = 0 ]; then
      if ! alive "$(slurmd_pid "$n")" || ! in_netns "$(cat "$(slurmd_pid "$n")")" "$n"; then
        echo "slurmd of node $n does not run in network namespace $(netns_of "$n"): run start"
        ok=1
      elif ! reaches_ctld "$n"; then
        echo "node $n (${NODE_ADDR[$n]}) cannot reach slurmctld at $BRIDGE_ADDR:6817: run start"
        ok=1
      fi
    fi
    state=$(node_state "$n")
    gres=$(timeout 10 sinfo -h -n "$n" -o '%G' 2>/dev/null | head -1)
    echo "node $n: ${state:-no answer from slurmctld}, ${gres:-no gres}"
    [[ $state =~ ^(idle|mixed|allocated|completing) ]] || ok=1
    want=$GPUS
    [ "$n" = "$NODE" ] || want=$GPUS_2N
    if [ "$gres" != "gpu:$want" ]; then
      echo "node $n has ${gres:-no gres}, the settings ask for gpu:$want: run start"
      ok=1
    fi
  done
  if timeout 10 sacct -n -X -o JobID -S now >/dev/null 2>&1; then echo "sacct: answers"; else echo "sacct: no answer"; ok=1; fi
  timeout 10 squeue -o '%.8i %.24j %.9T %.10M %b' 2>/dev/null || true
  return $ok
}

cmd=${1:-}
case $cmd in
  start | stop | restart | clean)
    need_root "$cmd"
    install -d -m 0755 "$D"
    # One start/stop at a time: test files that run in parallel may all find the cluster down and call start.
    # The daemons are started with 9>&-: one that inherited the locked descriptor would hold the lock forever.
    exec 9>"$D/lock"
    flock 9
    # The daemons and our own client calls read this configuration even before /etc/slurm/slurm.conf points to it.
    export SLURM_CONF=$CONF
    case $cmd in
      restart) stop && start ;;
      *) "$cmd" ;;
    esac
    ;;
  status) status ;;
  *) die "usage: $0 start|stop|restart|status|clean" ;;
esac
