// Fuzz target for the experiment-spec loader and the sweep expansion: any bytes either load
// and expand (within the default point cap), or throw InputError. Anything else (a crash, a
// sanitizer report, a hang, std::bad_alloc, a YAML or JSON library exception) is a bug.
// The loader reads a path, so each input goes through one file of this process's own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/common/error.h"
#include "experiments/spec/experiment_spec.h"
#include "experiments/spec/sweep_grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/draftbench_spec_fuzz_" + std::to_string(::getpid()) + ".yaml";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  try {
    const draftbench::ExperimentSpec spec = draftbench::load_experiment_spec(path, DRAFTBENCH_SOURCE_DIR, DRAFTBENCH_TEST_MODEL);
    (void)draftbench::expand_sweep(spec);
  } catch (const draftbench::InputError&) {}
  return 0;
}
