#!/usr/bin/env bash
# The main job: builds larch and its examples, then, on the best executor of this machine, runs SpMV in
# every format (demo) and solves the system with BiCGSTAB + scalar Jacobi (solve).
# Usage: ./scripts/demo.sh [matrix.mtx] [--size N] [--executor NAME] [--repetitions R]
# (no matrix: a generated 3D Laplacian). BUILD_DIR chooses the build folder (default: build).
set -euo pipefail
source "$(dirname "$0")/common.sh"

build_dir="${BUILD_DIR:-$repo_root/build}"
ensure_build_packages
configure_and_build "$build_dir" demo solve
"$build_dir/examples/demo" "$@"

# The same problem for the solver: the matrix file, size and executor pass through; the rest is demo's.
solve_args=()
have_matrix=0
while [ $# -gt 0 ]; do
    case "$1" in
        --size | --executor) solve_args+=("$1" "$2"); shift 2 ;;
        --repetitions) shift 2 ;;
        *) solve_args+=("$1"); have_matrix=1; shift ;;
    esac
done
[ "$have_matrix" -eq 1 ] || solve_args+=(--generate laplace3d)
echo
echo "== Krylov solve: BiCGSTAB with scalar Jacobi, relative residual 1e-9 =="
"$build_dir/examples/solve" "${solve_args[@]}"
