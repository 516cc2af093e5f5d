#!/usr/bin/env bash
# For a GPU machine: an A/B run of source variants in one call. Each VARIANT is a folder that overlays the
# repository (its files at their repository-relative paths, e.g. VARIANT/cuda/batch/batch_sparse_spmv.cuh);
# every variant must hold the same set of files, since they are copied over one tree in turn. Per variant:
# an incremental build of larch_benchmark and the test programs named in $AB_TESTS (default
# batch_batch_sparse_spmv_test), each test run once (a test that fails or runs past 120 s is reported, and
# the variant is still timed), the benchmark binary kept. Then CONFIG runs once per variant and round,
# alternately, for $AB_ROUNDS rounds (default 2) while fewer than $AB_SECONDS seconds (default 520) have
# passed since the start. A one-line summary of each case is printed; logs and JSON results go to $OUT
# (default build-ab/out) as ab_logs.tgz, written even when the call is cut short.
# Build: static library, CUDA for sm_90 only, HIP and MPI off ($AB_CMAKE_ARGS adds or overrides options).
# Matrices, GoogleTest and nlohmann-json as scripts/gpu_run.sh finds them (.carry/matrices, .carry/googletest,
# .carry/prefix). Usage: scripts/gpu_ab.sh CONFIG VARIANT...
set -uo pipefail
source "$(dirname "$0")/common.sh"
cd "$repo_root"
if [ "$#" -lt 2 ]; then
    echo "usage: scripts/gpu_ab.sh CONFIG VARIANT..." >&2
    exit 2
fi
config="$(realpath "$1")"
shift
start=$(date +%s)
build_dir="$repo_root/build-ab"
logs="$(mktemp -d)/ab_logs"
out="${OUT:-$build_dir/out}"
mkdir -p "$logs" "$out" "$build_dir/bins"
trap 'tar czf "$out/ab_logs.tgz" -C "$(dirname "$logs")" ab_logs' EXIT
for variant in "$@"; do
    [ -d "$variant" ] || { echo "no variant folder $variant" >&2; exit 2; }
done
matrices="${LARCH_MATRIX_DIR:-$repo_root/.carry/matrices}"
link_carried_matrices
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee "$logs/machine.txt"

tests="${AB_TESTS:-batch_batch_sparse_spmv_test}"
LARCH_CMAKE_ARGS="$(carried_cmake_args) -DLARCH_BUILD_CUDA=ON -DLARCH_BUILD_HIP=OFF -DLARCH_BUILD_MPI=OFF
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real ${AB_CMAKE_ARGS:-}"
for variant in "$@"; do
    name="$(basename "$variant")"
    cp -r "$variant"/. "$repo_root"/
    begin=$(date +%s)
    # shellcheck disable=SC2086 # the test programs are separate targets
    if ! LARCH_CMAKE_ARGS="$LARCH_CMAKE_ARGS" configure_and_build "$build_dir" larch_benchmark $tests \
        >"$logs/build_$name.log" 2>&1; then
        echo "build $name failed (log: build_$name.log)"
        tail -n 40 "$logs/build_$name.log"
        exit 1
    fi
    echo "build $name: $(( $(date +%s) - begin )) s"
    cp "$build_dir/benchmark/larch_benchmark" "$build_dir/bins/larch_benchmark_$name"
    for test in $tests; do
        timeout 120 "$build_dir/test/$test" >"$logs/${test}_$name.log" 2>&1
        echo "$test $name: exit $?, $(grep -E '^\[  (PASSED|FAILED) ' "$logs/${test}_$name.log" | tr '\n' ' ')"
    done
done
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
    for variant in "$@"; do
        name="$(basename "$variant")"
        if [ $(( $(date +%s) - start )) -ge "${AB_SECONDS:-520}" ]; then
            echo "== $name round $round skipped: ${AB_SECONDS:-520} s have passed"
            continue
        fi
        run="ab_${name}_r$round"
        "$build_dir/bins/larch_benchmark_$name" "$config" --matrix-dir "$matrices" --output "$logs/$run.json" \
            >"$logs/$run.log" 2>&1
        echo "== $name round $round: exit $?"
        grep -E "^\[" "$logs/$run.log" | sed -E 's/, [0-9.]+ GFLOP\/s//; s/; error.*//'
    done
done
