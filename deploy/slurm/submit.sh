#!/usr/bin/env bash
# Submits a fleet run to Slurm: the array (one task per node, or per adapter) and the report
# job that runs after it. Prints the two job ids.
#
#   GPUBENCH_RESULTS_DIR=/shared/gpubench deploy/slurm/submit.sh [sbatch options for the array]
#
# e.g. `... submit.sh --array=0-7 --partition=gpu` (one task per node of eight), or with
# GPUBENCH_PER=adapter `... submit.sh --array=0-3 --gres=gpu:1` (one task per GPU, each seeing
# only its own, so the default selection with GPUBENCH_ADAPTER=default and --require-gpu in
# GPUBENCH_ARGS picks it). The binary is GPUBENCH_BIN, else `gpubench` on PATH, else
# target/release/gpubench of this checkout, built once here if missing: put it on storage every
# node sees. Without --array, one task runs (task 0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GPUBENCH_RESULTS_DIR:?set GPUBENCH_RESULTS_DIR to a directory on shared storage}"
bin=${GPUBENCH_BIN:-$(command -v gpubench || true)}
if [ -z "$bin" ]; then
    bin=$here/../../target/release/gpubench
    [ -x "$bin" ] || (cd "$here/../.." && cargo build --release -p gpubench-cli)
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$GPUBENCH_RESULTS_DIR"
results=$(cd "$GPUBENCH_RESULTS_DIR" && pwd)
export GPUBENCH_BIN=$bin GPUBENCH_RESULTS_DIR=$results
array=$(sbatch --parsable --export=ALL --chdir="$results" "$@" "$here/gpubench-array.sbatch")
array=${array%%;*}
report=$(sbatch --parsable --export=ALL --chdir="$results" --dependency="afterany:$array" \
    "$here/gpubench-aggregate.sbatch")
echo "array job $array, report job ${report%%;*}; results in $results"
