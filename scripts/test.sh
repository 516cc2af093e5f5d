#!/usr/bin/env bash
# Builds larch with every backend this machine can compile (HIP and CUDA compile-checked without a GPU),
# runs all tests, builds a separate project against the installed package, and runs the benchmark smoke
# configuration. Fails on any failure. Usage: ./scripts/test.sh   (BUILD_DIR: default build)
set -euo pipefail
source "$(dirname "$0")/common.sh"

build_dir="${BUILD_DIR:-$repo_root/build}"
ensure_build_packages
configure_and_build "$build_dir"

echo "== tests"
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" 2>&1 | tee "$build_dir/ctest.log"

echo "== solver tests with 1, 2, 3 and 16 OpenMP threads"
# omp's dot products and norms combine fixed chunks in a fixed order, so a solve must iterate the same way
# with any thread count; ctest above ran them with the machine's.
for threads in 1 2 3 16; do
    for program in "$build_dir"/test/solver_*_test; do
        if ! OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=PASSIVE "$program" >"$build_dir/threads.log" 2>&1; then
            cat "$build_dir/threads.log"
            echo "error: $(basename "$program") failed with OMP_NUM_THREADS=$threads" >&2
            exit 1
        fi
    done
    echo "$threads thread(s): $(ls "$build_dir"/test/solver_*_test | wc -l) solver test programs passed"
done

echo "== sources speak of the code, not of the process that made it"
# Papers are cited by authors, year and title (docs/references.md), never by an internal number.
if grep -rniE "issue [0-9]|helper [A-Z][0-9]|paper 00[0-9]" "$repo_root" --exclude-dir='build*' \
        --exclude-dir=.git --exclude-dir=.carry --exclude=references.md; then
    echo "error: internal process words in the lines above" >&2
    exit 1
fi

echo "== installed packages (shared, then static)"
# The shared package is the build above installed; the static one is a second build of the library target
# alone (its objects come from ccache: same flags). Each is used by examples/install_consumer, a separate
# project that builds the user programs of examples/ against find_package(larch) and runs them.
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix/shared" >/dev/null
static_dir="$build_dir-static"
LARCH_CMAKE_ARGS="${LARCH_CMAKE_ARGS:-} -DBUILD_SHARED_LIBS=OFF -DLARCH_BUILD_TESTS=OFF
    -DLARCH_BUILD_BENCHMARKS=OFF -DLARCH_BUILD_EXAMPLES=OFF" configure_and_build "$static_dir" larch >/dev/null
cmake --install "$static_dir" --prefix "$prefix/static" >/dev/null
check_installed_package "$prefix/shared" "$build_dir/consumer-shared"
check_installed_package "$prefix/static" "$build_dir/consumer-static"
# A CPU program against the shared package on a machine without the CUDA toolkit: nvcc off PATH, the
# toolkit's CMake package disabled (find_package(CUDAToolkit) fails), and no GPU library may be linked.
# (PATH loses every folder holding nvcc, e.g. a wrapper in /usr/local/bin.)
(
    visible=()
    IFS=: read -r -a path_entries <<<"$PATH"
    for entry in "${path_entries[@]}"; do
        [ -x "$entry/nvcc" ] || [[ "$entry" == *cuda* ]] || visible+=("$entry")
    done
    PATH="$(IFS=:; echo "${visible[*]}")"
    unset CUDAToolkit_ROOT CUDA_PATH CUDA_HOME
    if command -v nvcc >/dev/null; then
        echo "error: nvcc is still on PATH" >&2
        exit 1
    fi
    LARCH_CONSUMER_CMAKE_ARGS="-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON" \
        check_installed_package "$prefix/shared" "$build_dir/consumer-no-cuda" --no-gpu-libraries
)

echo "== benchmark smoke run"
"$build_dir/benchmark/larch_benchmark" "$repo_root/benchmark/configs/smoke.json" \
    --output "$build_dir/smoke_results.json"
echo "scripts/test.sh: all passed"
test_counts "$build_dir/ctest.log"
