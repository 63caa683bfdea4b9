#!/usr/bin/env bash
# The real-GPU check in one call: gpubench's default run through Vulkan and the CUDA reference
# (scripts/cuda_reference.py) on the same machine, everything written to OUTDIR.
#
#   scripts/gpu-check.sh OUTDIR [path/to/gpubench]
#
# Build the release binary first (`cargo build --release -p gpubench-cli`). Where the machine has
# no Vulkan loader, put the loader packages (.deb: libvulkan1, libegl1, libglvnd0, ...) in the
# folder named by GPUBENCH_VULKAN_DEBS and they are unpacked first. Never changes the card's
# settings: it only reads them (nvidia-smi --query).
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR [gpubench]}
bin=${2:-./target/release/gpubench}
mkdir -p "$out"

if [ -n "${GPUBENCH_VULKAN_DEBS:-}" ] && ! ldconfig -p | grep -q 'libvulkan.so.1'; then
    for f in "$GPUBENCH_VULKAN_DEBS"/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; fi

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv || true; } > "$out/nvidia-smi.csv" 2>&1
"$bin" list > "$out/adapters.txt" 2>&1
"$bin" list --json > "$out/adapters.json" 2>/dev/null
timeout "${GPUBENCH_TIMEOUT:-420}" "$bin" run --profile default --backend vulkan --no-progress \
    --out "$out/gpubench.json" --html "$out/gpubench.html" > "$out/gpubench.txt" 2>&1
echo "gpubench exit $?" >> "$out/gpubench.txt"
timeout "${CUDA_TIMEOUT:-150}" python3 "$(dirname "$0")/cuda_reference.py" > "$out/cuda.json" 2> "$out/cuda.err"
echo "cuda reference exit $?" >> "$out/cuda.err"
tail -n 40 "$out/gpubench.txt"
cat "$out/cuda.json"
