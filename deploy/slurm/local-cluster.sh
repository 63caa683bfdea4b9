#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying the job scripts (and for gpubench's own
# test of them): munged, slurmctld and slurmd on localhost, every file under STATE_DIR.
#
#   deploy/slurm/local-cluster.sh start STATE_DIR    # prints the SLURM_CONF to export
#   deploy/slurm/local-cluster.sh stop STATE_DIR
#
# Needs root and Debian's slurm-wlm and munge (`apt-get install slurm-wlm munge`). Nothing
# outside STATE_DIR is written; the machine's own /etc/slurm and munge key are not used.
set -euo pipefail
action=${1:?usage: local-cluster.sh start|stop STATE_DIR}
state=$(mkdir -p "${2:?usage: local-cluster.sh start|stop STATE_DIR}" && cd "$2" && pwd)
conf=$state/slurm.conf

stop() {
    for pidfile in "$state"/slurmd.pid "$state"/slurmctld.pid "$state"/munged.pid; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    sleep 1
}

start() {
    mkdir -p "$state/spool" "$state/ctld" "$state/log"
    chmod 700 "$state"
    [ -f "$state/munge.key" ] || mungekey --create --keyfile="$state/munge.key" 2>/dev/null \
        || dd if=/dev/urandom of="$state/munge.key" bs=1024 count=1 status=none
    chmod 400 "$state/munge.key"
    munged --force --key-file="$state/munge.key" --socket="$state/munge.socket" \
        --pid-file="$state/munged.pid" --log-file="$state/log/munged.log" \
        --seed-file="$state/munge.seed"
    local cpus
    cpus=$(nproc)
    cat > "$conf" <<CONF
ClusterName=gpubench-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge.socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SlurmctldPort=${GPUBENCH_SLURMCTLD_PORT:-16817}
SlurmdPort=${GPUBENCH_SLURMD_PORT:-16818}
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    SLURM_CONF=$conf slurmctld -i
    SLURM_CONF=$conf slurmd -N localhost
    for _ in $(seq 1 30); do
        if SLURM_CONF=$conf sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "$conf"
            return 0
        fi
        sleep 1
    done
    echo "the local cluster did not come up; logs in $state/log" >&2
    tail -n 20 "$state"/log/*.log >&2 || true
    stop
    return 1
}

case $action in
    start) start ;;
    stop) stop ;;
    *) echo "usage: local-cluster.sh start|stop STATE_DIR" >&2; exit 2 ;;
esac
