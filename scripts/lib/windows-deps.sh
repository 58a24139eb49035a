# Sourced by scripts/deps: hwloc and Google Benchmark for x86_64-w64-mingw32, built once from Debian's own
# source packages into build/windows-deps (skipped when its stamp is there). Needs the mingw-w64 packages
# scripts/deps installs. $sudo_ is scripts/deps's.
ciot_windows_deps() {
  local root prefix src stamp triple=x86_64-w64-mingw32
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  prefix=$root/build/windows-deps
  src=$prefix/src
  stamp=$prefix/.built-hwloc-2.9.0-benchmark-1.7.1
  if [ -f "$stamp" ]; then echo "deps: windows hwloc and benchmark are built ($prefix)"; return 0; fi
  if ! apt-cache showsrc hwloc 2>/dev/null | grep -q '^Package: hwloc'; then
    echo "deps: adding Debian's deb-src entries (/etc/apt/sources.list.d/ciot-deb-src.sources)"
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      $sudo_ tee /etc/apt/sources.list.d/ciot-deb-src.sources >/dev/null
    $sudo_ apt-get update -q
  fi
  mkdir -p "$src"
  ( cd "$src"
    [ -d hwloc-2.9.0 ] || apt-get source -q hwloc=2.9.0-1
    [ -d benchmark-1.7.1 ] || apt-get source -q benchmark=1.7.1-1 )

  echo "deps: building hwloc 2.9.0 for $triple into $prefix"
  rm -rf "$prefix/obj-hwloc" "$prefix/obj-benchmark" && mkdir -p "$prefix/obj-hwloc"
  ( cd "$prefix/obj-hwloc"
    "$src/hwloc-2.9.0/configure" -q --disable-dependency-tracking --host=$triple --prefix="$prefix" CC=$triple-gcc-posix \
      --enable-static --disable-shared --disable-cairo --disable-libxml2 --disable-io --disable-plugins \
      --disable-opencl --disable-cuda --disable-nvml --disable-rsmi --disable-levelzero --disable-gl \
      --disable-libudev --disable-doxygen
    make -s -j"$(nproc)" -C include install
    make -s -j"$(nproc)" -C hwloc install )

  echo "deps: building Google Benchmark 1.7.1 for $triple into $prefix"
  cmake -S "$src/benchmark-1.7.1" -B "$prefix/obj-benchmark" -G Ninja -Wno-dev \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/x86_64-w64-mingw32.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DBENCHMARK_ENABLE_TESTING=OFF \
    -DBENCHMARK_ENABLE_GTEST_TESTS=OFF -DBENCHMARK_ENABLE_WERROR=OFF -DBENCHMARK_INSTALL_DOCS=OFF \
    -DHAVE_STD_REGEX=ON -DGIT_VERSION=1.7.1 >/dev/null
  cmake --build "$prefix/obj-benchmark" -j"$(nproc)" >/dev/null
  cmake --install "$prefix/obj-benchmark" >/dev/null
  touch "$stamp"
}
