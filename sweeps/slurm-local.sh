#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying `dprl sweep slurm` and for `make test-slurm`:
# Debian's slurm-wlm (22.05) with munge, this host as controller and only node.
#
#   eval "$(sweeps/slurm-local.sh up)"   install slurm-wlm and munge with apt when missing, make a fresh state
#                                        directory, pick a free port, write a munge key and slurm.conf there,
#                                        start munged, slurmctld and slurmd (as root) and wait for the node;
#                                        prints the DPRL_SLURM_STATE and SLURM_CONF to export
#   sweeps/slurm-local.sh down           cancel this cluster's jobs, stop the three daemons it started (by
#                                        their recorded process ids, nothing else), remove its state directory
#   sweeps/slurm-local.sh status         the daemons, sinfo and squeue
#   sweeps/slurm-local.sh running        exit status 0 if the three daemons are running
#   sweeps/slurm-local.sh env            print the exports for eval
#
# down, status, running and env act on the cluster of $DPRL_SLURM_STATE (or of $SLURM_CONF's directory).
# Configuration of up: DPRL_SLURM_STATE (use this state directory instead of a fresh one), DPRL_SLURM_PORT
# (slurmctld's port; slurmd uses the next one; default a free pair), DPRL_SLURM_MAX_ARRAY_SIZE (default 1001,
# Slurm's own). Everything the cluster writes stays in its state directory: /etc/slurm and /etc/munge are not
# touched, Debian's own services are not started, and several clusters can run at once, each with its own
# state directory and ports. Every probe of a daemon is bounded by a timeout.
set -euo pipefail

STATE=${DPRL_SLURM_STATE:-}
if [ -z "$STATE" ] && [ -n "${SLURM_CONF:-}" ] && [ "${1:-}" != up ]; then
	STATE=$(dirname "$SLURM_CONF")
fi
NODE=$(hostname -s)
PROBE=10 # seconds any one probe of a daemon may take

log() { echo "slurm-local: $*" >&2; }

need_state() {
	if [ -z "$STATE" ] || [ ! -f "$STATE/slurm.conf" ]; then
		log "no cluster: set DPRL_SLURM_STATE (or SLURM_CONF) to the state directory printed by up"
		exit 2
	fi
	CONF=$STATE/slurm.conf
	SOCKET=$STATE/munge/munge.socket.2
	export SLURM_CONF=$CONF
}

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

# alive NAME: the recorded process is running and is the daemon it was (its command line names it).
alive() {
	local f=$STATE/$1.pid pid
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$1"
}

wait_for() { # seconds, description, command...: the command bounds its own probes with PROBE
	local t=$1 what=$2
	shift 2
	local end=$((SECONDS + t))
	while ((SECONDS < end)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	log "timed out after ${t}s waiting for $what"
	return 1
}

no_jobs() { [ -z "$(timeout "$PROBE" squeue -h -o %i 2>/dev/null)" ]; }
node_idle() { timeout "$PROBE" sinfo -h -n "$NODE" -o %T | grep -Eq '^(idle|mixed|allocated)'; }

# free_port: a port P such that P and P+1 are free (slurmctld and slurmd), chosen at random.
free_port() {
	local p used
	used=$(ss -Htln 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}' | sort -u)
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 40000))
		if ! grep -qx "$p" <<<"$used" && ! grep -qx "$((p + 1))" <<<"$used"; then
			echo "$p"
			return 0
		fi
	done
	log "no free port pair found"
	return 1
}

write_config() { # port
	local cpus mem
	cpus=$(nproc)
	mem=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 / 2)) # MB; half, so the node is never short of it
	mkdir -p "$STATE"/{munge,spool,state,log}
	chmod 700 "$STATE/munge"
	if [ ! -f "$STATE/munge/munge.key" ]; then
		dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
		chmod 400 "$STATE/munge/munge.key"
	fi
	cat >"$CONF" <<EOF
# Written by sweeps/slurm-local.sh: a one-node cluster for dprl sweeps.
ClusterName=dprl-$(basename "$STATE" | tr -c 'a-zA-Z0-9\n' - | tr 'A-Z' 'a-z')
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
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
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# Schedule at once: a dependent merge job should not wait for the next minute's pass.
SchedulerParameters=sched_interval=1,bf_interval=1,defer_batch=0
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MaxArraySize=${DPRL_SLURM_MAX_ARRAY_SIZE:-1001}
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE DefMemPerCPU=100 State=UP
EOF
}

# start_daemons PORT: munged (once), slurmctld and slurmd; fails when slurmctld does not answer on PORT.
start_daemons() {
	write_config "$1"
	if ! alive munged; then
		munged --foreground --force --key-file="$STATE/munge/munge.key" --socket="$SOCKET" \
			--pid-file="$STATE/munge/munged.daemon.pid" --log-file="$STATE/log/munged.log" \
			--seed-file="$STATE/munge/munged.seed" >>"$STATE/log/munged.out" 2>&1 &
		echo $! >"$STATE/munged.pid"
		wait_for 20 "munged's socket" test -S "$SOCKET" || return 1
	fi
	slurmctld -D -c -f "$CONF" >>"$STATE/log/slurmctld.out" 2>&1 &
	echo $! >"$STATE/slurmctld.pid"
	if ! wait_for 30 "slurmctld on port $1" timeout "$PROBE" scontrol ping || ! alive slurmctld; then
		stop slurmctld
		return 1
	fi
	slurmd -D -f "$CONF" -N "$NODE" >>"$STATE/log/slurmd.out" 2>&1 &
	echo $! >"$STATE/slurmd.pid"
}

up() {
	install_if_missing
	PATH=/usr/sbin:/usr/bin:$PATH
	if [ -z "$STATE" ]; then
		STATE=$(mktemp -d "${TMPDIR:-/tmp}/dprl-slurm.XXXXXX")
	fi
	CONF=$STATE/slurm.conf
	SOCKET=$STATE/munge/munge.socket.2
	export SLURM_CONF=$CONF
	if alive slurmctld && alive slurmd && alive munged; then
		log "already up (state $STATE)"
		env_
		return 0
	fi
	if [ -e "$STATE/slurmctld.pid" ] || [ -e "$STATE/slurmd.pid" ] || [ -e "$STATE/munged.pid" ]; then
		log "stopping the leftovers of an earlier cluster in $STATE"
		stop_daemons
	fi
	local port tries=0
	until port=${DPRL_SLURM_PORT:-$(free_port)} && start_daemons "$port"; do
		tries=$((tries + 1))
		if [ -n "${DPRL_SLURM_PORT:-}" ] || ((tries >= 5)); then
			log "slurmctld did not start (port $port): $(tail -3 "$STATE/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
			stop_daemons
			exit 1
		fi
		log "port $port was taken meanwhile: another one"
	done
	if ! wait_for 60 "node $NODE to be idle" node_idle; then
		timeout "$PROBE" scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
		wait_for 30 "node $NODE to be idle" node_idle || {
			status
			exit 1
		}
	fi
	log "up in $STATE: munged $(cat "$STATE/munged.pid"), slurmctld $(cat "$STATE/slurmctld.pid") on port $port, slurmd $(cat "$STATE/slurmd.pid"); node $NODE, $(nproc) CPUs, MaxArraySize ${DPRL_SLURM_MAX_ARRAY_SIZE:-1001}"
	env_
}

stop() { # name: SIGTERM the recorded process, then SIGKILL after 15 s
	local name=$1 pid
	alive "$name" || {
		rm -f "$STATE/$name.pid"
		return 0
	}
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

stop_daemons() {
	stop slurmd
	stop slurmctld
	stop munged
}

down() {
	need_state
	PATH=/usr/sbin:/usr/bin:$PATH
	if alive slurmctld; then
		timeout "$PROBE" scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
		wait_for 30 "jobs to end" no_jobs || true
	fi
	stop_daemons
	if [ "${DPRL_SLURM_KEEP:-}" = 1 ]; then
		log "kept $STATE (DPRL_SLURM_KEEP=1)"
	else
		rm -rf "$STATE"
	fi
}

status() {
	need_state
	for d in munged slurmctld slurmd; do
		if alive "$d"; then echo "$d: running ($(cat "$STATE/$d.pid"))"; else echo "$d: not running"; fi
	done
	if alive slurmctld; then
		timeout "$PROBE" sinfo 2>&1 || true
		timeout "$PROBE" squeue 2>&1 || true
	fi
}

env_() { echo "export DPRL_SLURM_STATE=$(printf '%q' "$STATE") SLURM_CONF=$(printf '%q' "$STATE/slurm.conf")"; }

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
running)
	need_state
	alive munged && alive slurmctld && alive slurmd
	;;
env)
	need_state
	env_
	;;
*)
	echo "usage: $0 up|down|status|running|env" >&2
	exit 2
	;;
esac
