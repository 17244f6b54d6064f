// The default model for the model tests, loaded once per test binary from the path ctest
// puts in DRAFTBENCH_MODEL.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/model/model.h"

namespace draftbench::test {

inline std::string default_model_path() {
  const char* path = std::getenv("DRAFTBENCH_MODEL");
  if (!path) FAIL("DRAFTBENCH_MODEL is not set (ctest sets it; run scripts/setup.sh to fetch the model)");
  return path;
}

inline const Model& default_model() {
  static const std::unique_ptr<Model> model = Model::load(default_model_path());
  return *model;
}

}  // namespace draftbench::test
