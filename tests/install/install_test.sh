#!/usr/bin/env bash
# kiln as a C++ user gets it: `cmake --install` into a fresh prefix, then
# examples/cpp configured with find_package(kiln) against that prefix alone,
# built and run (its kernel is checked against the interpreter).
#
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" --component devel >"$tmp/install.log"
for f in lib/cmake/kiln/kilnConfig.cmake lib/cmake/kiln/kilnTargets.cmake lib/libkiln_core.a \
         include/kiln/tir/schedule/schedule.h include/kiln/rpc/proto/runner.pb.h bin/kiln; do
  [ -e "$tmp/prefix/$f" ] || { echo "install_test: $f was not installed" >&2; exit 1; }
done
# The installed package must not point back into the build or the source tree.
if grep -rl -e "$(cd "$build" && pwd)" -e "$(cd "$src" && pwd)/" "$tmp/prefix/lib/cmake"; then
  echo "install_test: the CMake package names the build or source tree" >&2
  exit 1
fi

cmake -S "$src/examples/cpp" -B "$tmp/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/example" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/example/matmul_relu"
