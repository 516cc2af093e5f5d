#!/usr/bin/env bash
# For the GPU machine (CUDA, no internet, no apt): builds larch with CUDA and without HIP, runs every test
# (the CUDA tests run there), then each benchmark configuration given as argument.
# Usage: scripts/gpu_run.sh [benchmark/configs/spmv.json ...]
# Logs and JSON results go to $OUT (default build-gpu/out). Matrices: $LARCH_MATRIX_DIR, else
# .carry/matrices, else ../shared/matrices. LARCH_SKIP_TESTS=1 runs only the benchmarks.
# Exits non-zero if the build, a test or a benchmark failed, but runs the benchmarks even after a failed
# test so that the numbers come back.
set -uo pipefail
source "$(dirname "$0")/common.sh"
cd "$repo_root"

build_dir="${BUILD_DIR:-$repo_root/build-gpu}"
out="${OUT:-$build_dir/out}"
mkdir -p "$out"
jobs="$(nproc)"
# Exported only where the folder exists: larch_benchmark (and so its tests) rejects a LARCH_MATRIX_DIR that is
# not a directory, while its default folder may be missing.
if [ -z "${LARCH_MATRIX_DIR:-}" ]; then
    if [ -d "$repo_root/.carry/matrices" ]; then
        export LARCH_MATRIX_DIR="$repo_root/.carry/matrices"
    elif [ -d "$repo_root/../shared/matrices" ]; then
        export LARCH_MATRIX_DIR="$repo_root/../shared/matrices"
    fi
fi
link_carried_matrices
status=0
{
    echo "host: $(hostname), $(nproc) cores"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
    nvcc --version | tail -1
    echo "matrices: ${LARCH_MATRIX_DIR:-none}"
} | tee "$out/machine.txt"

carried_args="$(carried_cmake_args)"

# Open MPI carried as Debian packages (scripts/carry_mpi.sh): unpacked outside / (unpacking there can break the
# image), then found through OPAL_PREFIX; the distributed module and its mpirun tests are then built and run.
if ls "$repo_root"/.carry/mpi/*.deb >/dev/null 2>&1; then
    mpi_root=/opt/larch-mpi
    mkdir -p "$mpi_root" && for package in "$repo_root"/.carry/mpi/*.deb; do dpkg -x "$package" "$mpi_root"; done
    export OPAL_PREFIX="$mpi_root/usr" PATH="$mpi_root/usr/bin:$PATH"
    export LD_LIBRARY_PATH="$mpi_root/usr/lib/x86_64-linux-gnu:$mpi_root/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
    carried_args="$carried_args -DMPI_CXX_COMPILER=$mpi_root/usr/bin/mpicxx.openmpi"
    carried_args="$carried_args -DMPIEXEC_EXECUTABLE=$mpi_root/usr/bin/mpirun.openmpi"
fi

start=$(date +%s)
LARCH_CMAKE_ARGS="$carried_args -DLARCH_BUILD_CUDA=ON -DLARCH_BUILD_HIP=OFF ${LARCH_CMAKE_ARGS:-}" \
    configure_and_build "$build_dir" >"$out/build.log" 2>&1
build_status=$?
echo "build: exit $build_status after $(( $(date +%s) - start )) s (log: build.log)"
if [ "$build_status" -ne 0 ]; then
    tail -n 60 "$out/build.log"
    exit "$build_status"
fi

if [ -z "${LARCH_SKIP_TESTS:-}" ]; then
    start=$(date +%s)
    ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs" >"$out/ctest.log" 2>&1 ||
        status=1
    echo "ctest after $(( $(date +%s) - start )) s: $(test_counts "$out/ctest.log") (log: ctest.log)"
    grep -E "^\s+[0-9]+ - .*\((Failed|SEGFAULT|Timeout|Subprocess aborted|Exception)" "$out/ctest.log"
fi

for config in "$@"; do
    name="$(basename "$config" .json)"
    start=$(date +%s)
    "$build_dir/benchmark/larch_benchmark" "$config" --output "$out/$name.json" \
        >"$out/$name.log" 2>&1 || status=1
    echo "benchmark $name: $(tail -n 1 "$out/$name.log") after $(( $(date +%s) - start )) s"
    sed -n '/^$/,$p' "$out/$name.log" | head -n 80
done
exit "$status"
