#!/usr/bin/env bash
# The main job: builds larch and its demo, then runs SpMV in every format on the best executor of this
# machine. Usage: ./scripts/demo.sh [matrix.mtx] [--size N] [--executor NAME] [--repetitions R]
# (no matrix: a generated 3D Laplacian). BUILD_DIR chooses the build folder (default: build).
set -euo pipefail
source "$(dirname "$0")/common.sh"

build_dir="${BUILD_DIR:-$repo_root/build}"
ensure_build_packages
configure_and_build "$build_dir" demo
"$build_dir/examples/demo" "$@"
