#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying `dprl sweep slurm` and for `make test-slurm`:
# Debian's slurm-wlm (22.05) with munge, this host as controller and only node.
#
#   sweeps/slurm-local.sh up       install slurm-wlm and munge with apt when missing, write a munge key and
#                                  slurm.conf under the state directory, start munged, slurmctld and slurmd
#                                  (as root), wait for the node to be idle; prints the SLURM_CONF to export
#   sweeps/slurm-local.sh down     cancel this cluster's jobs, stop the three daemons it started (by their
#                                  recorded process ids, nothing else), remove the state directory
#   sweeps/slurm-local.sh status   the daemons and sinfo
#   sweeps/slurm-local.sh running  exit status 0 if the three daemons are running
#   sweeps/slurm-local.sh env      print `export SLURM_CONF=...` for eval
#
# Configuration: DPRL_SLURM_STATE (state directory, default /tmp/dprl-slurm), DPRL_SLURM_PORT (slurmctld's
# port, default 6817; slurmd uses the next one). Everything the cluster writes stays under the state
# directory: /etc/slurm and /etc/munge are not touched, and Debian's own services are not started.
set -euo pipefail

STATE=${DPRL_SLURM_STATE:-/tmp/dprl-slurm}
PORT=${DPRL_SLURM_PORT:-6817}
CONF=$STATE/slurm.conf
NODE=$(hostname -s)
SOCKET=$STATE/munge/munge.socket.2

log() { echo "slurm-local: $*" >&2; }

install_if_missing() {
	local missing=()
	for bin in slurmctld slurmd sbatch munged; do
		command -v "$bin" >/dev/null || [ -x "/usr/sbin/$bin" ] || missing+=("$bin")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing slurm-wlm and munge (missing: ${missing[*]})"
	if [ "$(id -u)" != 0 ]; then
		log "apt-get needs root"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq slurm-wlm munge >/dev/null; }
}

# alive PIDFILE: the recorded process is running and is the daemon it was (its command line names it).
alive() {
	local f=$STATE/$1.pid pid
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$1"
}

wait_for() { # seconds, description, command...
	local t=$1 what=$2
	shift 2
	for _ in $(seq "$((t * 5))"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	log "timed out waiting for $what"
	return 1
}

node_idle() { sinfo -h -n "$NODE" -o %T | grep -Eq '^(idle|mixed|allocated)'; }

write_config() {
	local cpus
	cpus=$(nproc)
	mkdir -p "$STATE"/{munge,spool,state,log}
	chmod 700 "$STATE/munge"
	if [ ! -f "$STATE/munge/munge.key" ]; then
		dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
		chmod 400 "$STATE/munge/munge.key"
	fi
	cat >"$CONF" <<EOF
# Written by sweeps/slurm-local.sh: a one-node cluster for dprl sweeps.
ClusterName=dprl-local
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$STATE/state
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.daemon.pid
SlurmdPidFile=$STATE/slurmd.daemon.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Schedule at once: a dependent merge job should not wait for the next minute's pass.
SchedulerParameters=sched_interval=1,bf_interval=1,defer_batch=0
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MaxArraySize=10001
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

up() {
	install_if_missing
	if alive slurmctld && alive slurmd && alive munged; then
		log "already up (state $STATE)"
		echo "export SLURM_CONF=$CONF"
		return 0
	fi
	if [ -e "$STATE" ]; then
		log "stopping the leftovers of an earlier cluster in $STATE"
		down
	fi
	write_config
	export SLURM_CONF=$CONF
	PATH=/usr/sbin:/usr/bin:$PATH
	munged --foreground --force --key-file="$STATE/munge/munge.key" --socket="$SOCKET" \
		--pid-file="$STATE/munge/munged.daemon.pid" --log-file="$STATE/log/munged.log" \
		--seed-file="$STATE/munge/munged.seed" >>"$STATE/log/munged.out" 2>&1 &
	echo $! >"$STATE/munged.pid"
	wait_for 20 "munged's socket" test -S "$SOCKET"
	slurmctld -D -c -f "$CONF" >>"$STATE/log/slurmctld.out" 2>&1 &
	echo $! >"$STATE/slurmctld.pid"
	wait_for 30 slurmctld scontrol ping
	slurmd -D -f "$CONF" -N "$NODE" >>"$STATE/log/slurmd.out" 2>&1 &
	echo $! >"$STATE/slurmd.pid"
	if ! wait_for 60 "node $NODE to be idle" node_idle; then
		scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
		wait_for 30 "node $NODE to be idle" node_idle || { status; exit 1; }
	fi
	log "up: munged $(cat "$STATE/munged.pid"), slurmctld $(cat "$STATE/slurmctld.pid"), slurmd $(cat "$STATE/slurmd.pid"); node $NODE, $(nproc) CPUs"
	echo "export SLURM_CONF=$CONF"
}

stop() { # name: SIGTERM the recorded process, then SIGKILL after 15 s
	local name=$1 pid
	alive "$name" || { rm -f "$STATE/$name.pid"; return 0; }
	pid=$(cat "$STATE/$name.pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 75); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
	rm -f "$STATE/$name.pid"
	log "stopped $name ($pid)"
}

down() {
	export SLURM_CONF=$CONF
	if alive slurmctld; then
		scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
		wait_for 30 "jobs to end" test -z "$(squeue -h -o %i 2>/dev/null)" || true
	fi
	stop slurmd
	stop slurmctld
	stop munged
	if [ "${DPRL_SLURM_KEEP:-}" = 1 ]; then
		log "kept $STATE (DPRL_SLURM_KEEP=1)"
	else
		rm -rf "$STATE"
	fi
}

status() {
	export SLURM_CONF=$CONF
	for d in munged slurmctld slurmd; do
		if alive "$d"; then echo "$d: running ($(cat "$STATE/$d.pid"))"; else echo "$d: not running"; fi
	done
	if alive slurmctld; then # (sinfo and squeue wait a minute for a controller that is not there)
		sinfo 2>&1 || true
		squeue 2>&1 || true
	fi
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
running) alive munged && alive slurmctld && alive slurmd ;;
env) echo "export SLURM_CONF=$CONF" ;;
*)
	echo "usage: $0 up|down|status|running|env" >&2
	exit 2
	;;
esac
