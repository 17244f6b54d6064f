#!/usr/bin/env bash
# Writes a self-contained folder that proves the CUDA backend on a GPU machine which has
# the CUDA toolkit and driver but none of this project's Debian libraries, and no network:
#
#   build/gpu-bundle/
#     bin/         draftbench, the CUDA test binaries, cuda_emulation_tests, cuda_kernel_bench
#                  (stripped; rpath $ORIGIN/../lib)
#     lib/         the Debian libraries they need (fmt, yaml-cpp, sentencepiece, ...)
#     lib/fallback/ this machine's libstdc++ and libgcc_s, used only where the GPU
#                  machine's own are older than the binaries need
#     gpu_check.sh, gpu_check.py, MANIFEST.json
#
# The CUDA runtime is linked statically; cuBLASLt and the driver come from the GPU machine.
# Run there: `bash build/gpu-bundle/gpu_check.sh` (README.md, "The GPU check"; docs/usage.md in full).
#
#   scripts/gpu_bundle.sh                      build with the `gpu` preset (sm_90) and bundle
#   scripts/gpu_bundle.sh --build-dir DIR      bundle an existing build tree instead
#   scripts/gpu_bundle.sh --out DIR            write the bundle elsewhere (default build/gpu-bundle)
set -euo pipefail
cd "$(dirname "$0")/.."

build="" out=build/gpu-bundle
while (($#)); do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "gpu_bundle: unknown argument '$1' (expected --build-dir DIR or --out DIR)" >&2; exit 2 ;;
  esac
done
limit_mib=64
log() { echo "gpu_bundle: $*" >&2; }
command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || { log "nvcc not found: the CUDA toolkit is needed to build the bundle"; exit 2; }
if ! command -v patchelf >/dev/null; then
  log "installing patchelf"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends patchelf >/dev/null
fi

if [[ -z $build ]]; then
  build=build/gpu
  [[ -f $build/build.ninja ]] || PATH=$PATH:/usr/local/cuda/bin cmake --preset gpu >/dev/null
fi
[[ -f $build/build.ninja ]] || { log "$build: not a configured build tree"; exit 2; }
grep -q 'cuda_kernel_bench' "$build/build.ninja" ||
  { log "$build was configured without CUDA"; exit 2; }
mapfile -t tests < <(cmake --build "$build" --target help | sed -n 's/^\(cuda_[a-z_]*_test\):.*/\1/p' | sort -u)
targets=(draftbench cuda_emulation_tests cuda_kernel_bench "${tests[@]}")
log "building ${#targets[@]} targets in $build"
cmake --build "$build" --target "${targets[@]}" -- --quiet

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/fallback"
for t in "${targets[@]}"; do
  f=$(find "$build" -name "$t" -type f -perm -u+x -not -path '*/CMakeFiles/*' | head -1)
  [[ -n $f ]] || { log "$t: built, but not found under $build"; exit 1; }
  cp "$f" "$out/bin/$t"
  strip --strip-unneeded "$out/bin/$t"
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$out/bin/$t"  # DT_RPATH: also serves the libraries' own needs
done

# Every library the binaries load, except the C library family (the GPU machine has its
# own, and mixing two glibcs breaks) and CUDA's (that machine's toolkit and driver).
system_lib='^(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libresolv|libutil)\.so'
cuda_lib='^(libcuda|libcublas|libcublasLt|libcudart|libnvidia|libnvrtc|libnvJitLink)\.so'
runtime_lib='^(libstdc\+\+|libgcc_s)\.so'
declare -A seen=()
for b in "$out"/bin/*; do
  while read -r name path; do
    [[ -n ${seen[$name]:-} ]] && continue
    seen[$name]=1
    if [[ $name =~ $runtime_lib ]]; then cp -L "$path" "$out/lib/fallback/$name"
    elif [[ ! $name =~ $system_lib && ! $name =~ $cuda_lib ]]; then cp -L "$path" "$out/lib/$name"; fi
  done < <(LD_LIBRARY_PATH= ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
done
for l in "$out"/lib/*.so*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$l"; done

cp scripts/gpu_check.sh scripts/gpu_check.py "$out/"
glibc_needed=$(objdump -T "$out"/bin/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -V | tail -1)
glibcxx_needed=$(objdump -T "$out"/bin/* 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -V | tail -1)
cuda_archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")
cat > "$out/MANIFEST.json" <<EOF
{
  "git_commit": "$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')",
  "built": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "build_dir": "$build",
  "cuda_architectures": "$cuda_archs",
  "nvcc": "$( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version) | sed -n 's/.*release \([0-9.]*\).*/\1/p')",
  "needs": {"glibc": "$glibc_needed", "glibcxx": "$glibcxx_needed", "from_the_gpu_machine": ["libcuda.so.1 (driver)", "libcublasLt.so (CUDA toolkit)"]},
  "binaries": [$(for b in "$out"/bin/*; do printf '"%s",' "$(basename "$b")"; done | sed 's/,$//')],
  "libraries": [$(for l in "$out"/lib/*.so*; do printf '"%s",' "$(basename "$l")"; done | sed 's/,$//')]
}
EOF

mib=$(du -sm "$out" | cut -f1)
log "wrote $out: ${#targets[@]} binaries, $(ls "$out/lib" | grep -c '\.so') libraries, ${mib} MiB (CUDA ${cuda_archs}; needs ${glibc_needed}, ${glibcxx_needed})"
if ((mib >= limit_mib)); then log "$out is ${mib} MiB, over the ${limit_mib} MiB a GPU machine is sent"; exit 1; fi
