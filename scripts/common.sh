# Shared by the scripts of scripts/: Debian packages on demand, the CUDA compiler on PATH, configure + build.
# Sourced, not run.

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# nvcc lives outside PATH on the CI and GPU machines; CMake finds it (and builds CUDA) once it is on PATH.
if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi

# Runs a command as root (directly when we are root, through sudo otherwise).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs the Debian packages among "$@" that are missing; returns non-zero if that fails.
ensure_packages() {
    local missing=()
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    echo "installing missing packages: ${missing[*]}"
    as_root apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The packages every build needs, then (optionally) the HIP compiler for the HIP compile check and Open MPI
# for the distributed module.
ensure_build_packages() {
    ensure_packages cmake make g++ ccache libgtest-dev nlohmann-json3-dev ||
        { echo "error: could not install the build packages" >&2; return 1; }
    ensure_packages hipcc libamdhip64-dev ||
        echo "warning: hipcc could not be installed; building without the HIP backend" >&2
    ensure_packages libopenmpi-dev openmpi-bin ||
        echo "warning: Open MPI could not be installed; building without the distributed module" >&2
}

# configure_and_build BUILD_DIR [TARGET...]: configures (Release, every backend this machine can compile)
# and builds the given targets (all when none) with one job per core.
configure_and_build() {
    local build_dir="$1"
    shift
    local launcher=()
    if command -v ccache >/dev/null; then
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
        # Paths below the repository's parent are hashed relative to the build folder, so two build folders
        # side by side (shared and static library) share their cached objects.
        export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$repo_root")}"
    fi
    cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
        ${LARCH_CMAKE_ARGS:-}
    local targets=()
    for target in "$@"; do
        targets+=(--target "$target")
    done
    cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
}

# test_counts CTEST_LOG: "tests: N passed, M failed" from ctest's summary line (for CI's test count).
test_counts() {
    local summary total failed
    # ctest writes "N% tests passed, M tests failed out of T", or "100% tests passed out of T" in some
    # versions when nothing failed.
    summary="$(grep -E "tests passed(, [0-9]+ tests? failed)? out of [0-9]+" "$1" 2>/dev/null | tail -n 1)"
    [ -n "$summary" ] || return 0
    failed=0
    if grep -qE "failed out of" <<<"$summary"; then
        failed="$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$summary")"
    fi
    total="$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary")"
    echo "tests: $(( total - failed )) passed, $failed failed"
}

# check_installed_package PREFIX CONSUMER_BUILD_DIR [--no-gpu-libraries]: builds examples/install_consumer
# (find_package(larch) from PREFIX) and runs its programs; checks that the exported targets hold no absolute
# path; with --no-gpu-libraries also that no program links a CUDA or HIP library.
check_installed_package() {
    local prefix="$1" consumer_dir="$2" mode="${3:-}"
    echo "-- package $prefix (consumer in $consumer_dir)"
    local targets
    targets="$(ls "$prefix"/lib*/cmake/larch/larchTargets*.cmake)"
    if grep -nE '"/|;/' $targets | grep -v '_IMPORT_PREFIX'; then
        echo "error: the exported targets above hold absolute paths" >&2
        return 1
    fi
    cmake -S "$repo_root/examples/install_consumer" -B "$consumer_dir" -DCMAKE_PREFIX_PATH="$prefix" \
        -DLARCH_DATA_DIR="$repo_root/test/data" ${LARCH_CONSUMER_CMAKE_ARGS:-} >/dev/null
    cmake --build "$consumer_dir" --parallel "$(nproc)" >/dev/null
    if [ "$mode" = "--no-gpu-libraries" ]; then
        local program
        for program in "$consumer_dir"/bin/*; do
            if readelf -d "$program" | grep NEEDED | grep -iE "cuda|cublas|cusparse|amdhip|hsa"; then
                echo "error: $program links the GPU libraries above" >&2
                return 1
            fi
        done
    fi
    (cd "$consumer_dir" && ctest --output-on-failure)
}

# On a GPU machine (no apt): the tests look for real matrices in ../shared/matrices; point it at the copy
# carried in .carry/matrices where it is missing.
link_carried_matrices() {
    if [ ! -e "$repo_root/../shared/matrices" ] && [ -d "$repo_root/.carry/matrices" ]; then
        mkdir -p "$repo_root/../shared" 2>/dev/null &&
            ln -s "$repo_root/.carry/matrices" "$repo_root/../shared/matrices" 2>/dev/null
    fi
    return 0
}

# CMake arguments for what a GPU machine cannot install: header-only nlohmann-json (.carry/prefix) and
# GoogleTest's sources (.carry/googletest), where they were carried.
carried_cmake_args() {
    local args=""
    [ -d "$repo_root/.carry/prefix" ] && args="-DCMAKE_PREFIX_PATH=$repo_root/.carry/prefix"
    [ -d "$repo_root/.carry/googletest" ] && args="$args -DLARCH_GTEST_SOURCE_DIR=$repo_root/.carry/googletest"
    echo "$args"
}
