#!/usr/bin/env bash
# Installs every Debian package allocstress needs, and only those that are missing (idempotent:
# a second run installs nothing and does not touch apt). Must run as root, or with sudo available.
set -euo pipefail

packages=(
  # toolchain and build
  g++ cmake make pkg-config git
  # compiler cache: a second build directory of the same sources (the README's first command on a
  # fresh build directory, tests/cli/first_command.sh) compiles in seconds, not minutes
  ccache
  # libraries the build finds with find_package / pkg-config
  libbenchmark-dev libhwloc-dev libboost-dev libgtest-dev nlohmann-json3-dev libcli11-dev
  # programs files (TOML) are read with toml++
  libtomlplusplus-dev
  # callgrind's cache simulator (`--cache-sim`, build-time header valgrind/callgrind.h) and setarch
  valgrind util-linux
  # trace capture and replay: zstd-compressed trace blocks, heaptrack (tracer overhead comparison
  # and importer), strace (profile syscalls), clang's libFuzzer (trace-reader fuzz target;
  # libclang-rt-14-dev also ships the Scudo allocator of allocators/manifest.tsv)
  libzstd-dev zstd heaptrack strace clang libclang-rt-14-dev
  # drop-in allocators listed in allocators/manifest.tsv
  libjemalloc2 libgoogle-perftools4 libtcmalloc-minimal4 libmimalloc2.0 libtbbmalloc2
  # real-program workloads (prog-*, workloads/programs/programs.toml); python3 and gcc come above
  sqlite3 lua5.4 ghostscript redis-server redis-tools xz-utils rocksdb-tools
  # analysis package (Python under /usr/bin/python3) and its pybind11 extension
  python3 python3-dev pybind11-dev python3-numpy python3-pandas python3-scipy python3-matplotlib
  # test-time tools: pytest, JSON-schema validation, headless Chromium for the report test
  python3-pytest python3-jsonschema python3-selenium chromium chromium-driver
  # Google Benchmark's compare.py (tests/python/comparison/test_compare_gbench.py reads our --gbench-view with it)
  libbenchmark-tools
  # the Slurm backend's tests start a single-node Slurm (tests/slurm/localhost_slurm.sh)
  slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-deps: done"
