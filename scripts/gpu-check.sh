#!/usr/bin/env bash
# The real-GPU check in one call, for an NVIDIA card: make sure the run will be on that card,
# then CUDA's reference figures (scripts/cuda_reference.py, short, first), then gpubench through
# Vulkan at the same sizes, then the side-by-side table. Everything lands in OUTDIR.
#
#   scripts/gpu-check.sh OUTDIR [path/to/gpubench]
#
# Build the release binary first (`cargo build --release -p gpubench-cli`). Loader packages
# (.deb: see scripts/gpu-check-debs.sh) in the folder GPUBENCH_VULKAN_DEBS are unpacked first
# where the machine has no Vulkan loader. The card's settings are only read, never changed.
#
# Stops within seconds, exit 3, when no NVIDIA discrete adapter is found through Vulkan (a
# software adapter is never measured in its place), printing the loader's log and vulkaninfo.
# Time: GPUBENCH_TIMEOUT (default 290 s) bounds gpubench's run, CUDA_TIMEOUT (default 150 s) the
# reference; gpubench saves after every result, so a timeout keeps what was measured.
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR [gpubench]}
bin=${2:-./target/release/gpubench}
here=$(cd "$(dirname "$0")" && pwd)
vendor=${GPUBENCH_EXPECT_VENDOR:-0x10de}
# One size for both tools: gpubench --stream-size and the reference --stream-bytes.
stream_size=1GiB
stream_bytes=$((1 << 30))
mkdir -p "$out"
log() { echo "gpu-check: $*" | tee -a "$out/check.log" >&2; }

unpack_loaders() {
    # grep reads all of ldconfig's output (no -q): under pipefail, -q's early exit makes
    # ldconfig die of SIGPIPE once its list passes a pipe's 64 KiB, and the pipeline fails.
    if [ -n "${GPUBENCH_VULKAN_DEBS:-}" ] && ! ldconfig -p | grep 'libvulkan.so.1' > /dev/null; then
        for f in "$GPUBENCH_VULKAN_DEBS"/*.deb; do dpkg -x "$f" /; done
        ldconfig
        log "unpacked $(ls "$GPUBENCH_VULKAN_DEBS"/*.deb | wc -l) loader packages"
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

# Index of the expected adapter in the adapters gpubench listed, or nothing.
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
    exit 3
}

unpack_loaders
icd=$(find_icd)
if [ -n "$icd" ]; then
    export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
    log "Vulkan driver manifest: $icd"
    missing=$(missing_libs "$icd")
    [ -n "$missing" ] && log "the driver's library lacks: $(echo $missing)"
else
    log "no NVIDIA Vulkan driver manifest found"
fi
"$bin" list --json > "$out/adapters.json" 2>>"$out/check.log"
index=$(pick_adapter)
[ -n "$index" ] || stop_no_gpu
log "adapter $index is vendor $vendor, discrete, Vulkan"

{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.mem,power.limit,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv || true; } > "$out/nvidia-smi.csv" 2>&1
# The checklist with real NVML readings (clocks, throttle reasons, link, other processes).
timeout 60 "$bin" doctor --adapter "$index" --json > "$out/doctor.json" 2>>"$out/check.log"
log "doctor exit $?"

start=$(date +%s)
timeout "${CUDA_TIMEOUT:-150}" python3 "$here/cuda_reference.py" --stream-bytes "$stream_bytes" \
    > "$out/cuda.json" 2> "$out/cuda.err"
log "cuda reference exit $? after $(( $(date +%s) - start )) s"

start=$(date +%s)
timeout -s TERM -k 20 "${GPUBENCH_TIMEOUT:-290}" "$bin" run --adapter "$index" \
    --expect-vendor "$vendor" --expect-type discrete --profile default \
    --suite stream,compute,matmul,transfer,launch,roofline --stream-size "$stream_size" \
    --max-time "${GPUBENCH_MAX_TIME:-2}" --no-progress --baseline-dir "$out/baselines" --save-baseline \
    --out "$out/gpubench.json" --html "$out/gpubench.html" > "$out/gpubench.txt" 2>&1
log "gpubench exit $? after $(( $(date +%s) - start )) s"

nominal=()
[ -n "${GPUBENCH_NOMINAL:-}" ] && nominal=(--nominal "$GPUBENCH_NOMINAL")
python3 "$here/side_by_side.py" "$out/gpubench.json" "$out/cuda.json" "${nominal[@]}" \
    --json "$out/side-by-side.json" > "$out/side-by-side.md" 2>>"$out/check.log"
cat "$out/side-by-side.md"
