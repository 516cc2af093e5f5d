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

echo "== installed package"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
cmake -S "$repo_root/examples/install_consumer" -B "$build_dir/install_consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build_dir/install_consumer" --parallel "$(nproc)"
"$build_dir/install_consumer/install_consumer"

echo "== benchmark smoke run"
"$build_dir/benchmark/larch_benchmark" "$repo_root/benchmark/configs/smoke.json" \
    --output "$build_dir/smoke_results.json"
echo "scripts/test.sh: all passed"
test_counts "$build_dir/ctest.log"
