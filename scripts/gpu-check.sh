#!/usr/bin/env bash
# The real-GPU check in one call, for an NVIDIA card: make sure the run will be on that card,
# then CUDA's reference figures (scripts/cuda_reference.py, short, first), then gpubench through
# Vulkan at the same sizes, then the side-by-side table. Everything lands in OUTDIR, and all of
# it in one archive, OUTDIR/gpu-check.tar.gz: where few files come back from the machine, that
# one is enough.
#
#   scripts/gpu-check.sh OUTDIR [path/to/gpubench]
#   scripts/gpu-check.sh --rehearsal OUTDIR [path/to/gpubench]
#
# Build the release binary first (`cargo build --release -p gpubench-cli`) and carry it stripped:
# `strip -o gpubench-stripped target/release/gpubench` (about 10 MiB instead of 55 MiB), then
# `scripts/gpu-check.sh out ./gpubench-stripped`. Loader packages (.deb: see
# scripts/gpu-check-debs.sh) in the folder GPUBENCH_VULKAN_DEBS are unpacked first where the
# machine has no Vulkan loader. The card's settings are only read, never changed.
#
# Stops within seconds, exit 3, when no NVIDIA discrete adapter is found through Vulkan (a
# software adapter is never measured in its place), printing the loader's log and vulkaninfo;
# the archive then holds check.log and adapters.json, and nothing was measured.
# Time: before the window starts, scripts/check_budget.py predicts the check's time on the card
# from the work each step does (scripts/check-plan-h200.json) and the script refuses, exit 4, a
# plan predicted over 450 s, and, exit 5, step timeouts that add up to over 540 s. The timeouts:
# GPUBENCH_TIMEOUT (default 210 s) bounds gpubench's run, CUDA_TIMEOUT (default 80 s) the
# reference, LIST_TIMEOUT (20 s), SMI_TIMEOUT (10 s) and DOCTOR_TIMEOUT (20 s) the start-up,
# GPUBENCH_MEMORY_TIMEOUT (65 s) the memory suite, a step of its own after the main run into
# gpubench-memory.json (CUDA_MEMORY_TIMEOUT caps CUDA's side of it); each step saves after
# every result (section), so a timeout keeps what was measured. The suites run
# cheapest first and matmul last (its largest square first), so a stop in matmul keeps the
# others and the headline. The roofline runs only where its prediction is under 10 s. Each
# step's time is logged (steps.tsv), and budget.md puts them, and each suite's time from its
# results' extra.wall_s, beside the card's prediction.
# GPUBENCH_COOP=off runs gpubench with --no-coop-matrix (f16 matmul without cooperative
# matrices); GPUBENCH_NOMINAL=FILE gives the nominal figures (see side_by_side.py).
#
# SIGTERM or SIGINT to this script: the running step gets the signal, saves what it finished
# (gpubench and the reference both do), and the script still builds the table from whatever
# exists, writes the archive and exits 143 (130). Otherwise the exit status is 0 when the
# side-by-side table was produced, 1 when not, 3 at the vendor check, 4 or 5 at the budget check. The wall time of the whole
# check is logged (`gpu-check: wall time N s`, stderr and check.log).
#
# --rehearsal runs all of it here, without an NVIDIA card: gpubench on the Vulkan software
# adapter (lavapipe: --profile quick --expect-type cpu, 16 MiB stream arrays), and the CUDA side
# through the repo's test doubles (scripts/tests/doubles: torch, cupy, pynvml, nvcc, nvidia-smi,
# first on PYTHONPATH and PATH), at gpubench's quick-profile sizes so the table pairs rows; the
# baseline is saved with --force (a software adapter is noisier than the band). Its outputs say
# "REHEARSAL" at the top; they are not measurements.
set -uo pipefail
rehearsal=0
if [ "${1:-}" = --rehearsal ]; then
    rehearsal=1
    shift
fi
out=${1:?usage: gpu-check.sh [--rehearsal] OUTDIR [gpubench]}
bin=${2:-./target/release/gpubench}
here=$(cd "$(dirname "$0")" && pwd)
vendor=${GPUBENCH_EXPECT_VENDOR:-0x10de}
started=$(date +%s)
# The table is built from the files in OUTDIR and the archive takes all of them: an earlier
# check's files would pass for this one's. A new or empty directory only (exit 2, before the
# window starts).
if [ -e "$out" ] && { [ ! -d "$out" ] || [ -n "$(ls -A "$out")" ]; }; then
    echo "gpu-check: $out exists and is not an empty directory: a check builds its table from the files it writes there and archives them all; give a new or empty OUTDIR" >&2
    exit 2
fi
mkdir -p "$out"
# The script's own stderr, kept apart: a trap that runs while a step's output is redirected to a
# file still logs here (the steps themselves do not inherit it).
exec {stderr}>&2
log() { echo "gpu-check: $*" | tee -a "$out/check.log" >&"$stderr"; }

# --- The budget, before the window starts ---------------------------------------------------
# The card's step timeouts, and the prediction of the card's check from its work. The rehearsal
# checks the card's plan with the card's default timeouts, then runs with its own (the
# environment's timeouts are the rehearsal's there: a software adapter is slower).
card_env() { if [ "$rehearsal" = 1 ]; then echo "$2"; else echo "${!1:-$2}"; fi; }
list_timeout=$(card_env LIST_TIMEOUT 20)
smi_timeout=$(card_env SMI_TIMEOUT 10)
card_doctor_timeout=$(card_env DOCTOR_TIMEOUT 20)
card_cuda_timeout=$(card_env CUDA_TIMEOUT 80)
card_gpubench_timeout=$(card_env GPUBENCH_TIMEOUT 210)
card_memory_timeout=$(card_env GPUBENCH_MEMORY_TIMEOUT 65)
card_peers_timeout=$(card_env PEERS_TIMEOUT 40)
peers_list_timeout=10
# How long a step may take to save and exit after its timeout's SIGTERM before `timeout` kills
# it (-k): part of the step's worst case, so counted in the sum.
reference_kill=5
gpubench_kill=10
peers_kill=5
budget_plan=(--plan "${GPU_CHECK_PLAN:-$here/check-plan-h200.json}")
wanted_suites=stream,compute,transfer,launch,roofline,datapath,matmul
suites=$(python3 "$here/check_budget.py" suites "${budget_plan[@]}" --suites "$wanted_suites") \
    || { log "the budget check could not read its plan"; exit 2; }
card_timeouts=list=$list_timeout,smi=$smi_timeout,doctor=$card_doctor_timeout
card_timeouts+=,cuda-reference=$((card_cuda_timeout + reference_kill))
card_timeouts+=,gpubench=$((card_gpubench_timeout + gpubench_kill))
card_timeouts+=,gpubench-memory=$((card_memory_timeout + gpubench_kill))
card_timeouts+=,vkpeak-list=$peers_list_timeout,vkpeak=$((card_peers_timeout + peers_kill))
card_timeouts+=,clpeak-list=$peers_list_timeout,clpeak=$((card_peers_timeout + peers_kill))
python3 "$here/check_budget.py" predict "${budget_plan[@]}" --suites "$suites" \
    --timeouts "$card_timeouts" --json "$out/budget.json" 2>&1 | tee -a "$out/check.log" >&"$stderr"
budget_rc=${PIPESTATUS[0]}
if [ "$budget_rc" != 0 ]; then
    log "refused before the window starts (exit $budget_rc): see the prediction above"
    exit "$budget_rc"
fi
[ "$suites" = "$wanted_suites" ] || log "suites: $suites (the roofline is predicted over 10 s)"

# Appends one step's wall time to steps.tsv: NAME, seconds since START (date +%s).
step_time() { printf '%s\t%s\n' "$1" "$(( $(date +%s) - $2 ))" >> "$out/steps.tsv"; }

# --- Signals -------------------------------------------------------------------------------
# bash runs a trap only between commands, never while a foreground command runs, so each step
# runs in the background (run_step) and the script waits for it: a signal then interrupts the
# wait, is forwarded to the step, and the wait resumes until the step has saved and exited.
caught=      # TERM or INT, once one has arrived: no further step starts
signals=0    # how many have arrived (run_step tells a signal's return from the step's own)
child=       # the step running now
finishing=0  # building the table and the archive: a signal is noted, not forwarded
watchdog=
# Seconds a step may take to save and exit after a forwarded signal before it is killed.
grace=${GPU_CHECK_GRACE:-20}

# shellcheck disable=SC2329  # invoked by the traps below
on_signal() {
    signals=$((signals + 1))
    [ -n "$caught" ] || caught=$1
    if [ "$finishing" = 0 ] && [ -n "$child" ]; then
        log "SIG$1: forwarded to the running step (pid $child), which saves what it finished"
        kill -s "$1" "$child" 2>/dev/null
        # A step that does not exit within the grace period is killed with its process group
        # (each step runs under timeout, which leads its own group). The watchdog is one process
        # (python, not a subshell with a sleep) so that stopping it leaves nothing behind.
        [ -n "$watchdog" ] || {
            python3 -c 'import os, signal, sys, time
time.sleep(float(sys.argv[1]))
for target in (-int(sys.argv[2]), int(sys.argv[2])):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass' "$grace" "$child" < /dev/null > /dev/null 2>&1 {stderr}>&- &
            watchdog=$!
        }
    elif [ "$finishing" = 1 ]; then
        log "SIG$1: noted; the table and the archive are finished first"
    else
        log "SIG$1: between steps; the steps left are skipped"
    fi
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT

# Runs one step ("$@", with the caller's redirections) and returns its exit status.
run_step() {
    local rc again before
    "$@" {stderr}>&- &
    child=$!
    while :; do
        before=$signals
        wait "$child"
        rc=$?
        [ "$signals" = "$before" ] && break
        # The wait returned for a signal: wait again for the step itself, unless it has ended
        # (then the second wait gives its status; 127 where the first had already taken it).
        if ! kill -0 "$child" 2>/dev/null; then
            wait "$child"
            again=$?
            [ "$again" = 127 ] || rc=$again
            break
        fi
    done
    child=
    if [ -n "$watchdog" ]; then
        kill "$watchdog" 2>/dev/null
        wait "$watchdog" 2>/dev/null
        watchdog=
    fi
    return "$rc"
}

# True while no signal has arrived: the next step may start.
measuring() { [ -z "$caught" ]; }

# --- The archive, the table, the end --------------------------------------------------------
# Every file in OUTDIR (folders such as baselines/ included) but the archive itself, written
# beside it and renamed, so a half-written archive is never taken for the real one.
write_archive() {
    local name=gpu-check.tar.gz
    if (cd "$out" && find . -mindepth 1 -maxdepth 1 ! -name "$name" ! -name "$name.tmp" \
            -printf '%P\0' | LC_ALL=C sort -z | tar --null -czf "$name.tmp" -T -) \
        && mv -f "$out/$name.tmp" "$out/$name"; then
        echo "gpu-check: archive $out/$name ($(du -k "$out/$name" | cut -f1) KiB)" >&"$stderr"
    else
        echo "gpu-check: writing the archive failed" >&"$stderr"
    fi
}

wall_time() { log "wall time $(( $(date +%s) - started )) s"; }

# The side-by-side table from whatever exists (either side may be missing or partial), the wall
# time, the archive; then the exit status.
finish() {
    finishing=1
    local produced=0 nominal=() banner=()
    [ -n "${GPUBENCH_NOMINAL:-}" ] && nominal=(--nominal "$GPUBENCH_NOMINAL")
    [ "$rehearsal" = 1 ] && banner=(--banner "$rehearsal_banner")
    local peers=()
    [ -f "$out/peers.json" ] && peers=(--peers "$out/peers.json")
    log "building side-by-side"
    if python3 "$here/side_by_side.py" "$out/gpubench.json" "$out/cuda.json" "${nominal[@]}" \
        "${banner[@]}" "${peers[@]}" --memory "$out/gpubench-memory.json" \
        --json "$out/side-by-side.json" \
        > "$out/side-by-side.md.tmp" 2>>"$out/check.log"; then
        mv -f "$out/side-by-side.md.tmp" "$out/side-by-side.md"
        produced=1
        cat "$out/side-by-side.md"
    else
        rm -f "$out/side-by-side.md.tmp"
        log "no side-by-side table: neither side was measured"
    fi
    # Each step's time and each suite's (its results' wall_s) beside the prediction: on the
    # card, the figures the next plan's costs come from; in the rehearsal, lavapipe's.
    if [ -f "$out/steps.tsv" ]; then
        python3 "$here/check_budget.py" report "$out/steps.tsv" "${budget_plan[@]}" \
            --suites "$suites" --results "$out/gpubench.json" "$out/gpubench-memory.json" \
            > "$out/budget.md" 2>>"$out/check.log" \
            && tee -a "$out/check.log" < "$out/budget.md" >&"$stderr"
    fi
    wall_time
    write_archive
    case $caught in
        TERM) exit 143 ;;
        INT) exit 130 ;;
    esac
    [ "$produced" = 1 ] && exit 0
    exit 1
}

# --- Finding the card -----------------------------------------------------------------------
unpack_loaders() {
    # grep reads all of ldconfig's output (no -q): under pipefail, -q's early exit makes
    # ldconfig die of SIGPIPE once its list passes a pipe's 64 KiB, and the pipeline fails.
    if [ -n "${GPUBENCH_VULKAN_DEBS:-}" ] && ! ldconfig -p | grep 'libvulkan.so.1' > /dev/null; then
        local debs=("$GPUBENCH_VULKAN_DEBS"/*.deb) f
        for f in "${debs[@]}"; do dpkg -x "$f" /; done
        ldconfig
        log "unpacked ${#debs[@]} loader packages"
    fi
}

# The NVIDIA Vulkan ICD manifest: the loader's standard places, then the driver's own folder;
# where the driver ships none, one is written next to the results pointing at libGLX_nvidia.
find_icd() {
    local dirs="/etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d
        /usr/local/etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d
        /usr/local/nvidia/etc/vulkan/icd.d /usr/lib/x86_64-linux-gnu/nvidia"
    for d in $dirs; do
        for f in "$d"/nvidia*.json; do [ -f "$f" ] && { echo "$f"; return; }; done
    done
    local lib
    lib=$(ldconfig -p | awk '/libGLX_nvidia\.so\.0/ {print $NF; exit}')
    [ -z "$lib" ] && for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64; do
        [ -f "$d/libGLX_nvidia.so.0" ] && { lib=$d/libGLX_nvidia.so.0; break; }
    done
    if [ -n "$lib" ]; then
        printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
            "$lib" > "$out/nvidia_icd.json"
        echo "$out/nvidia_icd.json"
    fi
}

# Libraries the driver needs that this machine lacks (libGLX_nvidia wants libX11, libXext, ...).
missing_libs() {
    local icd=$1 lib
    lib=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ICD"]["library_path"])' "$icd" 2>/dev/null)
    [ -n "$lib" ] || return 0
    case $lib in /*) ;; *) lib=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}') ;; esac
    [ -n "$lib" ] && ldd "$lib" 2>/dev/null | awk '/not found/ {print $1}'
}

# Index of the expected adapter in the adapters gpubench listed, or nothing: the vendor's,
# discrete, through Vulkan. The only rule outside the rehearsal.
pick_adapter() {
    python3 -c '
import json, sys
want = int(sys.argv[1], 0)
for a in json.load(sys.stdin):
    if a["vendor_id"] == want and a["device_type"] == "discrete" and a["backend"] == "vulkan":
        print(a["index"]); break' "$vendor" < "$out/adapters.json"
}

stop_no_gpu() {
    log "no discrete Vulkan adapter of vendor $vendor: stopping before any measurement"
    log "adapters found:"
    "$bin" list 2>&1 | tee -a "$out/check.log" >&2
    log "Vulkan loader log (VK_LOADER_DEBUG=error,warn):"
    VK_LOADER_DEBUG=error,warn "$bin" list 2>&1 | grep -v '^  ' | head -40 | tee -a "$out/check.log" >&2
    if command -v vulkaninfo >/dev/null; then
        vulkaninfo --summary 2>&1 | head -40 | tee -a "$out/check.log" >&2
    else
        log "vulkaninfo not installed"
    fi
    wall_time
    write_archive
    exit 3
}

# --- The two modes --------------------------------------------------------------------------
coop=()
[ "${GPUBENCH_COOP:-}" = off ] && coop=(--no-coop-matrix)
if [ "$rehearsal" = 1 ]; then
    rehearsal_banner="REHEARSAL: software adapter and CUDA test doubles, not measurements"
    log "$rehearsal_banner"
    doubles=$here/tests/doubles
    export PATH="$doubles/bin:$PATH" PYTHONPATH="$doubles/python${PYTHONPATH:+:$PYTHONPATH}"
    export CUDA_NVCC_TIMEOUT=${CUDA_NVCC_TIMEOUT:-20} CUDA_LAUNCH_TIMEOUT=${CUDA_LAUNCH_TIMEOUT:-20} \
        CUDA_DATAPATH_TIMEOUT=${CUDA_DATAPATH_TIMEOUT:-20} CUDA_MEMORY_TIMEOUT=${CUDA_MEMORY_TIMEOUT:-20}
    # The software adapter is accepted here, in the rehearsal, and nowhere else.
    pick_rehearsal_adapter() {
        python3 -c '
import json, sys
for a in json.load(sys.stdin):
    if a["device_type"] == "cpu" and a["backend"] == "vulkan":
        print(a["index"]); break' < "$out/adapters.json"
    }
    startup_start=$(date +%s)
    run_step timeout "$list_timeout" "$bin" list --json > "$out/adapters.json" 2>>"$out/check.log"
    measuring || finish
    index=$(pick_rehearsal_adapter)
    if [ -z "$index" ]; then
        log "no Vulkan software adapter (lavapipe) for the rehearsal"
        "$bin" list 2>&1 | tee -a "$out/check.log" >&2
        wall_time
        write_archive
        exit 3
    fi
    log "rehearsal: adapter $index is the Vulkan software adapter"
    expect=(--expect-type cpu)
    profile=quick
    stream_size=16MiB
    stream_bytes=$((16 << 20))
    # gpubench's quick-profile matmul shapes and transfer sizes (4 KiB x 4^i up to 4 MiB).
    reference=(--quick --matmul-shapes "256x256x256,128x128x128,64x256x256,8x256x256,1x256x256"
               --transfer-sizes "4096,16384,65536,262144,1048576,4194304")
    doctor_timeout=30
    cuda_timeout=${CUDA_TIMEOUT:-60}
    gpubench_timeout=${GPUBENCH_TIMEOUT:-300}
    max_time=()
    [ -n "${GPUBENCH_MAX_TIME:-}" ] && max_time=(--max-time "$GPUBENCH_MAX_TIME")
    # A software adapter's own noise is over the band a baseline is refused above: record it
    # anyway, so that the rehearsal writes (and archives) baselines/ as the real check does.
    force=(--force)
else
    unpack_loaders
    icd=$(find_icd)
    if [ -n "$icd" ]; then
        export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
        log "Vulkan driver manifest: $icd"
        missing=$(missing_libs "$icd")
        [ -n "$missing" ] && log "the driver's library lacks: ${missing//$'\n'/ }"
    else
        log "no NVIDIA Vulkan driver manifest found"
    fi
    startup_start=$(date +%s)
    run_step timeout "$list_timeout" "$bin" list --json > "$out/adapters.json" 2>>"$out/check.log"
    measuring || finish
    index=$(pick_adapter)
    [ -n "$index" ] || stop_no_gpu
    log "adapter $index is vendor $vendor, discrete, Vulkan"
    expect=(--expect-vendor "$vendor" --expect-type discrete)
    profile=default
    # One size for both tools: gpubench --stream-size and the reference --stream-bytes.
    stream_size=1GiB
    stream_bytes=$((1 << 30))
    reference=()
    doctor_timeout=$card_doctor_timeout
    cuda_timeout=$card_cuda_timeout
    gpubench_timeout=$card_gpubench_timeout
    max_time=(--max-time "${GPUBENCH_MAX_TIME:-2}")
    force=()
fi

# --- The measurements -----------------------------------------------------------------------
measuring && run_step timeout "$smi_timeout" nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.mem,power.limit,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv \
    > "$out/nvidia-smi.csv" 2>&1
# The checklist with real NVML readings (clocks, throttle reasons, link, other processes).
if measuring; then
    run_step timeout "$doctor_timeout" "$bin" doctor --adapter "$index" --json \
        > "$out/doctor.json" 2>>"$out/check.log"
    log "doctor exit $?"
fi
step_time start-up "$startup_start"

if measuring; then
    step_start=$(date +%s)
    # The reference stops its memory program in time to print what it measured.
    run_step env CUDA_REFERENCE_DEADLINE=$((step_start + cuda_timeout)) \
        timeout -k "$reference_kill" "$cuda_timeout" python3 "$here/cuda_reference.py" \
        --stream-bytes "$stream_bytes" "${reference[@]}" --out "$out/cuda.json" \
        > "$out/cuda.err" 2>&1
    log "cuda reference exit $? after $(( $(date +%s) - step_start )) s"
    step_time cuda-reference "$step_start"
fi

# --- The Vulkan peers (vkpeak, clpeak) on the same adapter: scripts/peers.py ----------------
# Where GPUBENCH_PEERS (default: peers/ beside the gpubench binary; in the rehearsal, the test
# doubles' bin/) holds vkpeak and/or clpeak, each runs on gpubench's adapter (found by name in
# its own device list) under PEERS_TIMEOUT (default 40 s each on the card, 60 s in the
# rehearsal), its output in OUTDIR/TOOL.txt.
# A peer that is absent, or cannot find the adapter, is a status in the table, never a failure.
peers_dir=${GPUBENCH_PEERS:-$(dirname "$bin")/peers}
[ "$rehearsal" = 1 ] && peers_dir=${GPUBENCH_PEERS:-$here/tests/doubles/bin}
peers_timeout=$card_peers_timeout
line_buffered=()
command -v stdbuf > /dev/null && line_buffered=(stdbuf -oL)
[ "$rehearsal" = 1 ] && peers_timeout=${PEERS_TIMEOUT:-60}
[ -f "$peers_dir/VERSIONS" ] && cp "$peers_dir/VERSIONS" "$out/peers-versions.txt"
# One peer: its device list, gpubench's adapter found in it, then the run. Each step is a
# run_step (a signal reaches it); a stop between them leaves the rest not run, saying so.
run_peer() {
    local peer=$1 listing device args rc step_start
    local raw=$out/$peer.txt stopped="gpu-check: not run: the check was stopped before"
    measuring || { echo "$stopped $peer (SIG$caught)" > "$raw"; return; }
    if [ ! -x "$peers_dir/$peer" ]; then
        echo "gpu-check: not run: no $peer binary carried (none in GPUBENCH_PEERS=$peers_dir)" \
            > "$raw"
        log "$peer: not run: no $peer binary in $peers_dir"
        return
    fi
    # vkpeak lists its devices when asked for one it lacks; clpeak has --list-devices.
    # (clpeak's --version ends the run: its own call, before the list.)
    if [ "$peer" = vkpeak ]; then listing=("$peers_dir/$peer" 9999)
    else listing=(sh -c '"$0" --version; exec "$0" --list-devices --vulkan' "$peers_dir/$peer"); fi
    run_step timeout "$peers_list_timeout" "${listing[@]}" > "$out/$peer-devices.txt" 2>&1
    if ! device=$(python3 "$here/peers.py" device "$peer" "$out/$peer-devices.txt" \
            "$out/adapters.json" "$index" 2>>"$out/check.log"); then
        echo "gpu-check: not run: $device" > "$raw"
        return
    fi
    if [ "$peer" = vkpeak ]; then
        args=("$device" "$(python3 "$here/peers.py" scenarios)")
    else
        args=(--vulkan --vk-device "$device" --global-memory-bandwidth --kernel-launch-latency)
    fi
    measuring || { echo "$stopped $peer (SIG$caught)" > "$raw"; return; }
    step_start=$(date +%s)
    # Line-buffered: a peer stopped by its timeout keeps the figures it printed (vkpeak never
    # flushes its stdout, so a file would get nothing).
    run_step timeout -k "$peers_kill" "$peers_timeout" "${line_buffered[@]}" "$peers_dir/$peer" \
        "${args[@]}" > "$raw" 2>&1
    rc=$?
    echo "gpu-check: $peer exit $rc" >> "$raw"
    log "$peer exit $rc after $(( $(date +%s) - step_start )) s"
}
peers_start=$(date +%s)
for peer in vkpeak clpeak; do run_peer "$peer"; done
step_time peers "$peers_start"
python3 "$here/peers.py" parse "$out" --timeout "$peers_timeout" --json "$out/peers.json" \
    2>>"$out/check.log" || log "peers.py could not read the peers' outputs"

if measuring; then
    step_start=$(date +%s)
    run_step timeout -s TERM -k "$gpubench_kill" "$gpubench_timeout" "$bin" run --adapter "$index" \
        "${expect[@]}" --profile "$profile" --suite "$suites" --stream-size "$stream_size" \
        "${max_time[@]}" "${coop[@]}" --no-progress --baseline-dir "$out/baselines" \
        --save-baseline "${force[@]}" --out "$out/gpubench.json" --html "$out/gpubench.html" \
        > "$out/gpubench.txt" 2>&1
    log "gpubench exit $? after $(( $(date +%s) - step_start )) s"
    step_time gpubench "$step_start"
fi

# The memory suite: a step of its own (its own cap and results file), after the main run so that a
# stop in it keeps every other suite. Its CUDA side ran in the reference above at the card's fixed
# sweep (cuda_reference.py's default, held by a test to gpubench's own SweepPlan for NVIDIA: 4 KiB
# to 512 MiB at 2^k and 1.5 x 2^k, in every profile): a GPU's sweep depends only on the vendor's
# cache table, so the reference can run first and short as it always has, before gpubench has
# said anything. In the rehearsal lavapipe's quick sweep stops at twice the host's largest cache,
# a prefix of that same sweep, so every size it runs still finds its CUDA pair.
if measuring; then
    step_start=$(date +%s)
    memory_timeout=$card_memory_timeout
    [ "$rehearsal" = 1 ] && memory_timeout=${GPUBENCH_MEMORY_TIMEOUT:-60}
    run_step timeout -s TERM -k "$gpubench_kill" "$memory_timeout" "$bin" run --adapter "$index" \
        "${expect[@]}" --profile "$profile" --suite memory "${max_time[@]}" --no-progress \
        --out "$out/gpubench-memory.json" > "$out/gpubench-memory.txt" 2>&1
    log "gpubench memory exit $? after $(( $(date +%s) - step_start )) s"
    step_time gpubench-memory "$step_start"
fi

[ -n "$caught" ] && log "stopped by SIG$caught: the table is built from what was saved"
finish
