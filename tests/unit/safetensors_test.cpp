// The safetensors reader on files the test writes: a valid file round-trips (values,
// shapes, dtypes, metadata); every kind of corruption is a one-line InputError naming the
// file and the tensor; no truncation or byte flip crashes it.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "engine/common/error.h"
#include "engine/model/safetensors_file.h"
#include "engine/model/safetensors_writer.h"

using namespace draftbench;
using Catch::Matchers::Contains;
using draftbench::SafetensorsWriter;

namespace {

constexpr const char* kName = "test.safetensors";

// F32 [2, 3], BF16 [4], F16 [2, 2], an I64 buffer and an empty tensor.
SafetensorsWriter small_file() {
  SafetensorsWriter w;
  w.metadata("format", "pt");
  w.tensor_floats("a.weight", GgmlType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  w.tensor_floats("b.weight", GgmlType::BF16, {4}, {1.0f, -2.0f, 0.5f, 3.0f});
  w.tensor_floats("c.weight", GgmlType::F16, {2, 2}, {0.25f, -0.5f, 8.0f, 1024.0f});
  std::vector<uint8_t> position_ids(3 * 8, 0);
  w.tensor("position_ids", "I64", {3}, position_ids);
  w.tensor("empty", "F32", {0, 5}, {});
  return w;
}

// The message of the InputError that parsing `bytes` throws ("" if it parses).
std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    SafetensorsFile::parse(bytes, kName);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string error_of_header(const std::string& header, const std::vector<uint8_t>& data = std::vector<uint8_t>(64, 0)) {
  std::vector<uint8_t> bytes = SafetensorsWriter().bytes_with_header(header);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return error_of(bytes);
}

std::vector<float> floats_of(const SafetensorsTensor& t) {
  std::vector<float> v(t.n_bytes / 4);
  std::memcpy(v.data(), t.data, t.n_bytes);
  return v;
}

}  // namespace

TEST_CASE("safetensors: a file written by the test round-trips", "[safetensors]") {
  const auto path = std::filesystem::temp_directory_path() / ("draftbench_safetensors_test_" + std::to_string(getpid()) + ".safetensors");
  small_file().write(path.string());
  const SafetensorsFile f = SafetensorsFile::open(path.string());
  std::filesystem::remove(path);  // the mapping keeps the data readable

  CHECK(f.path() == path.string());
  CHECK(f.metadata() == std::map<std::string, std::string>{{"format", "pt"}});
  REQUIRE(f.tensors().size() == 5);
  // Listed by data offset, i.e. in the order written (the JSON keys are sorted).
  CHECK(f.tensors()[0].name == "a.weight");
  CHECK(f.tensors()[3].name == "position_ids");

  const SafetensorsTensor& a = f.tensor("a.weight");
  CHECK(a.dtype == "F32");
  CHECK(a.type == GgmlType::F32);
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  CHECK(a.n_elements() == 6);
  CHECK(floats_of(a) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // The writer pads the header to 8 bytes, so F32 data is naturally aligned.
  CHECK(reinterpret_cast<uintptr_t>(a.data) % 4 == 0);

  const SafetensorsTensor& b = f.tensor("b.weight");
  CHECK(b.type == GgmlType::BF16);
  CHECK(b.n_bytes == 8);
  uint16_t b0 = 0;
  std::memcpy(&b0, b.data, 2);
  CHECK(b0 == 0x3F80);  // 1.0 in bfloat16

  const SafetensorsTensor& c = f.tensor("c.weight");
  CHECK(c.type == GgmlType::F16);
  uint16_t c3 = 0;
  std::memcpy(&c3, c.data + 6, 2);
  CHECK(c3 == 0x6400);  // 1024 in IEEE half

  const SafetensorsTensor& ids = f.tensor("position_ids");
  CHECK(ids.dtype == "I64");
  CHECK_FALSE(ids.type.has_value());
  CHECK_THROWS_WITH(f.float_type(ids), Contains("tensor 'position_ids'") && Contains("dtype I64 is not supported for weights"));
  CHECK(f.float_type(c) == GgmlType::F16);

  CHECK(f.tensor("empty").n_bytes == 0);
  CHECK(f.find_tensor("nope") == nullptr);
  CHECK_THROWS_WITH(f.tensor("nope"), Contains("tensor 'nope': missing"));
}

TEST_CASE("safetensors: an unpadded header (older writers) still parses", "[safetensors]") {
  const auto bytes = small_file().bytes(/*pad_header=*/false);
  const SafetensorsFile f = SafetensorsFile::parse(bytes, kName);
  CHECK(floats_of(f.tensor("a.weight")) == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("safetensors: corrupt files give one-line errors naming file and tensor", "[safetensors]") {
  const auto valid = small_file().bytes();
  struct Case {
    const char* what;
    std::string error;
    std::vector<const char*> fragments;
  };
  std::vector<uint8_t> huge_length = valid;
  const uint64_t too_long = valid.size();
  std::memcpy(huge_length.data(), &too_long, 8);
  const std::vector<Case> cases = {
      {"empty file", error_of({}), {"too short for the 8-byte header length"}},
      {"truncated inside the header", error_of(std::vector<uint8_t>(valid.begin(), valid.begin() + 40)), {"header length", "truncated"}},
      {"header length past the end", error_of(huge_length), {"header length", "truncated"}},
      {"truncated data", error_of(std::vector<uint8_t>(valid.begin(), valid.end() - 3)), {"tensor 'empty'", "run past the end of the data region"}},
      {"bad JSON", error_of_header(R"({"a": {"dtype": "F32",)"), {"header", "not valid JSON"}},
      {"JSON not an object", error_of_header("[1, 2]"), {"header", "JSON is an array of 2 (expected an object of tensors)"}},
      {"JSON nested deep (not an object)",
       error_of_header(std::string(1'000'000, '[') + std::string(1'000'000, ']')),
       {"header", "JSON is an array of 1 (expected an object of tensors)"}},
      {"JSON nested deep (inside an entry)",
       error_of_header("{\"w\": " + std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}"),
       {"tensor 'w'", "header entry is an array of 1 (expected an object)"}},
      {"unknown dtype",
       error_of_header(R"({"w": {"dtype": "Q4_K", "shape": [2], "data_offsets": [0, 2]}})"),
       {"tensor 'w'", "dtype 'Q4_K' is not a safetensors dtype"}},
      {"shape/size mismatch",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})"),
       {"tensor 'w'", "hold 8 bytes but shape [3] of F32 needs 12"}},
      {"offsets out of bounds",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [60, 76]}})"),
       {"tensor 'w'", "data_offsets [60, 76] run past the end of the data region (64 bytes"}},
      {"offsets reversed", error_of_header(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 4]}})"), {"tensor 'w'", "end before they begin"}},
      {"negative offset",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}})"),
       {"tensor 'w'", "'data_offsets' holds -4 (expected a non-negative integer)"}},
      {"fractional dimension", error_of_header(R"({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})"), {"tensor 'w'", "'shape' holds 1.5"}},
      {"overlapping tensors",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}, "x": {"dtype": "F16", "shape": [4], "data_offsets": [12, 20]}})"),
       {"tensor 'x'", "data [12, 20) overlaps tensor 'w' [0, 16)"}},
      {"shape overflows",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})"),
       {"tensor 'w'", "is too large"}},
      {"missing dtype", error_of_header(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})"), {"tensor 'w'", "'dtype' is missing"}},
      {"missing shape", error_of_header(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})"), {"tensor 'w'", "'shape' is missing"}},
      {"offsets not a pair",
       error_of_header(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})"),
       {"tensor 'w'", "'data_offsets' is missing or not a [begin, end] pair"}},
      {"entry not an object", error_of_header(R"({"w": 3})"), {"tensor 'w'", "expected an object"}},
      {"metadata value not a string", error_of_header(R"({"__metadata__": {"format": 1}})"), {"__metadata__ 'format'", "not a string"}},
      {"control bytes in a name", error_of_header("{\"w\\nx\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 5]}}"), {"tensor 'w\\x0ax'"}},
  };
  for (const Case& c : cases) {
    INFO(c.what << ": " << c.error);
    CHECK_THAT(c.error, Contains(std::string(kName) + ": "));
    CHECK(c.error.find('\n') == std::string::npos);
    for (const char* fragment : c.fragments) CHECK_THAT(c.error, Contains(fragment));
  }
}

TEST_CASE("safetensors: a missing file names the path", "[safetensors]") {
  CHECK_THROWS_WITH(SafetensorsFile::open("/nonexistent/dir/model.safetensors"), Contains("/nonexistent/dir/model.safetensors") && Contains("cannot open"));
}

TEST_CASE("safetensors: no truncation or byte flip crashes the reader", "[safetensors]") {
  const auto valid = small_file().bytes();
  for (size_t n = 0; n < valid.size(); ++n) {
    const std::vector<uint8_t> cut(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_FALSE(error_of(cut).empty());  // every tensor but 'empty' has data, so any cut loses some
  }
  for (size_t at = 0; at < valid.size(); ++at) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bytes = valid;
      bytes[at] ^= flip;
      try {
        const SafetensorsFile f = SafetensorsFile::parse(bytes, kName);
        for (const SafetensorsTensor& t : f.tensors()) REQUIRE(t.data + t.n_bytes <= bytes.data() + bytes.size());
      } catch (const InputError&) {}
    }
  }
}
