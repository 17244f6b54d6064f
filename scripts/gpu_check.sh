#!/usr/bin/env bash
# The GPU check (README.md, "The GPU check"; docs/usage.md in full): whether draftbench's CUDA path is right on
# this machine and how fast it is, in one command that finishes well inside 8 minutes.
#
#   gpu_check.sh [OUTDIR]                  on a GPU machine, from the bundle that
#                                          scripts/gpu_bundle.sh writes or from a checkout
#   gpu_check.sh --model FILE [OUTDIR]     with a real GGUF model instead of a random one
#   gpu_check.sh --emulated [OUTDIR]       the rehearsal: the same sequence through
#                                          --device emulated, no GPU needed
#
# Writes gpu_check.json and gpu_check.log to $OUT when that is set, else to OUTDIR
# (default: ./gpu-check). Other options go to gpu_check.py (--budget-s, --bin, ...).
# Exit 0 when every step passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

out=${OUT:-} bin="" args=()
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --model|--budget-s|--sanitizer-timeout|--logit-tolerance) args+=("$1" "$2"); shift 2 ;;
    --emulated) args+=("$1"); shift ;;
    -*) echo "gpu_check: unknown option '$1'" >&2; exit 2 ;;
    *) [[ -n ${OUT:-} ]] || out=$1; shift ;;
  esac
done
out=${out:-gpu-check}
# The bundle keeps its binaries in bin/; a checkout in build/release.
if [[ -z $bin ]]; then
  if [[ -x $here/bin/draftbench ]]; then bin=$here/bin; else bin=$here/../build/release; fi
fi
db=$(find "$bin" -maxdepth 3 -name draftbench -type f -perm -u+x | head -1)
[[ -n $db ]] || { echo "gpu_check: no draftbench binary under $bin (run scripts/gpu_bundle.sh, or build first)" >&2; exit 2; }
mkdir -p "$out"

# cuBLASLt comes from this machine's CUDA toolkit: add its folder where the loader does
# not already find it (the CUDA images' ldconfig usually does; pip's nvidia wheels do not).
if ldd "$db" | grep -q 'libcublas.*not found'; then
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 \
           $(python3 -c 'import glob, site; print(" ".join(glob.glob(p + "/nvidia/cu*/lib") for p in site.getsitepackages()))' 2>/dev/null) \
           $(python3 -c 'import glob, site; print(" ".join(d for p in site.getsitepackages() for d in glob.glob(p + "/nvidia/cublas/lib")))' 2>/dev/null); do
    if compgen -G "$d/libcublasLt.so*" >/dev/null; then export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; break; fi
  done
fi
# The bundle's libstdc++ only where this machine's is older than the binaries need.
if [[ -d $here/lib/fallback ]] && "$db" --help 2>&1 | grep -q 'GLIBCXX_\|CXXABI_\|GCC_[0-9]'; then
  export LD_LIBRARY_PATH=$here/lib/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "gpu_check: using the bundle's libstdc++ (this machine's is older)"
fi

exec python3 "$here/gpu_check.py" --bin "$bin" --out "$out" "${args[@]}"
