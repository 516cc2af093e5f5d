#!/usr/bin/env bash
# Downloads Debian's Open MPI runtime and headers into .carry/mpi (run on the development machine, which reaches
# Debian's mirrors), so that scripts/gpu_run.sh can build and run the distributed module on the GPU machine,
# which has no MPI and no network. About 7.5 MB.
set -euo pipefail
source "$(dirname "$0")/common.sh"
mkdir -p "$repo_root/.carry/mpi"
cd "$repo_root/.carry/mpi"
apt-get download openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libhwloc15 libevent-core-2.1-7 \
    libevent-pthreads-2.1-7 libevent-2.1-7 libpmix2 libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200 \
    libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libnuma1 libmunge2 libltdl7 libxnvctrl0 libpciaccess0
