// The GGUF reader on files the test writes: a valid file round-trips; every kind of
// corruption is an InputError naming the key or tensor; no truncation crashes.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/mapped_file.h"

using namespace draftbench;

namespace {

GgufWriter small_file() {
  GgufWriter w;
  w.kv("general.architecture", std::string("llama"));
  w.kv("some.count", uint32_t{7});
  w.kv("some.signed", int32_t{-3});
  w.kv("some.float", 0.5f);
  w.kv("some.flag", true);
  w.kv("some.big", uint64_t{1} << 40);
  w.kv_strings("some.strings", {"a", "bc", ""});
  w.kv_floats("some.floats", {1.0f, -2.0f});
  w.tensor_f32("t.a", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  w.tensor_f32("t.b", {3}, {9, 10, 11});
  return w;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    GgufFile::parse(bytes, "test.gguf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

}  // namespace

TEST_CASE("a valid GGUF file round-trips", "[gguf]") {
  for (uint32_t version : {2u, 3u}) {
    const auto bytes = small_file().bytes(version);
    const GgufFile f = GgufFile::parse(bytes, "test.gguf");
    REQUIRE(f.version() == version);
    REQUIRE(f.get_string("general.architecture") == "llama");
    REQUIRE(f.get_int("some.count") == 7);
    REQUIRE(f.get_int("some.signed") == -3);
    REQUIRE(f.get_float("some.float") == 0.5);
    REQUIRE(f.get_bool("some.flag", false));
    REQUIRE(f.get_int("some.big") == (int64_t{1} << 40));
    REQUIRE(f.get_string_array("some.strings") == std::vector<std::string>{"a", "bc", ""});
    REQUIRE(f.get_float_array("some.floats") == std::vector<double>{1.0, -2.0});
    REQUIRE(f.tensors().size() == 2);
    const GgufTensor& a = f.tensor("t.a");
    REQUIRE(a.ne == std::vector<int64_t>{4, 2});
    float v[8];
    std::memcpy(v, a.data, sizeof v);
    REQUIRE(v[7] == 8.0f);
    REQUIRE((f.tensor("t.b").data - bytes.data()) % 32 == 0);
  }
}

TEST_CASE("released pages of a mapped file read back unchanged, parsed bytes are not a mapping", "[gguf]") {
  // The CPU forward pass releases the file's copy of the weights it repacked
  // (release_mapped_pages), which is only safe for a file mapping: on heap bytes MADV_DONTNEED
  // would zero them.
  const auto bytes = small_file().bytes(3);
  REQUIRE_FALSE(GgufFile::parse(bytes, "test.gguf").is_mapped());
  const std::string path = (std::filesystem::temp_directory_path() / ("draftbench_mapped_" + std::to_string(::getpid()) + ".bin")).string();
  std::vector<uint8_t> content(5 * 4096 + 123);
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<uint8_t>(i * 7 + 3);
  {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    REQUIRE(out != nullptr);
    REQUIRE(std::fwrite(content.data(), 1, content.size(), out) == content.size());
    std::fclose(out);
  }
  {
    const MappedFile mapped(path);
    const auto view = mapped.bytes();
    REQUIRE(std::memcmp(view.data(), content.data(), content.size()) == 0);
    release_mapped_pages(view.subspan(100, 3 * 4096));
    release_mapped_pages(view);
    REQUIRE(std::memcmp(view.data(), content.data(), content.size()) == 0);
  }
  {
    // And releasing takes the pages off this process's resident set (16 MiB touched, then released).
    const std::vector<uint8_t> big(16 << 20, 1);
    std::FILE* out = std::fopen(path.c_str(), "wb");
    REQUIRE(std::fwrite(big.data(), 1, big.size(), out) == big.size());
    std::fclose(out);
    const MappedFile mapped(path);
    const auto resident_pages = [] {
      long size = 0, resident = 0;
      std::FILE* statm = std::fopen("/proc/self/statm", "r");
      REQUIRE(std::fscanf(statm, "%ld %ld", &size, &resident) == 2);
      std::fclose(statm);
      return resident;
    };
    unsigned sum = 0;
    for (size_t i = 0; i < big.size(); i += 4096) sum += mapped.bytes()[i];
    REQUIRE(sum == big.size() / 4096);
    const long before = resident_pages();
    release_mapped_pages(mapped.bytes());
    REQUIRE(before - resident_pages() >= 3 * 1024);  // at least 12 MiB of the 16 in 4 KiB pages
  }
  std::remove(path.c_str());
  std::FILE* gguf = std::fopen(path.c_str(), "wb");
  REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), gguf) == bytes.size());
  std::fclose(gguf);
  REQUIRE(GgufFile::open(path).is_mapped());
  std::remove(path.c_str());
}

TEST_CASE("typed getters name the key and the expected type", "[gguf]") {
  const auto bytes = small_file().bytes();
  const GgufFile f = GgufFile::parse(bytes, "test.gguf");
  REQUIRE_THROWS_WITH(f.get_string("some.count"), Catch::Contains("key 'some.count'") && Catch::Contains("expected a string"));
  REQUIRE_THROWS_WITH(f.get_int("missing.key"), Catch::Contains("key 'missing.key'") && Catch::Contains("missing"));
  REQUIRE_THROWS_WITH(f.tensor("nope"), Catch::Contains("tensor 'nope'"));
}

TEST_CASE("every truncation of a GGUF file is a clean error", "[gguf]") {
  const auto bytes = small_file().bytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    INFO("truncated to " << n << " of " << bytes.size() << " bytes");
    REQUIRE_FALSE(error_of(cut).empty());
  }
}

TEST_CASE("corrupt headers give errors that say what is wrong", "[gguf]") {
  const auto good = small_file().bytes();
  SECTION("magic") {
    auto b = good;
    b[0] = 'X';
    REQUIRE_THAT(error_of(b), Catch::Contains("not a GGUF file"));
  }
  SECTION("version 1") {
    auto b = good;
    put_u32(b, 4, 1);
    REQUIRE_THAT(error_of(b), Catch::Contains("version 1 is not supported"));
  }
  SECTION("big-endian") {
    auto b = good;
    put_u32(b, 4, 0x03000000);
    REQUIRE_THAT(error_of(b), Catch::Contains("big-endian"));
  }
  SECTION("absurd counts") {
    auto b = good;
    const uint64_t huge = ~uint64_t{0} >> 1;
    std::memcpy(&b[8], &huge, 8);
    REQUIRE_THAT(error_of(b), Catch::Contains("tensor_count"));
  }
  SECTION("unknown value type") {
    GgufWriter w;
    w.kv("k", uint32_t{1});
    auto b = w.bytes();
    put_u32(b, 24 + 8 + 1, 99);  // header, key length, "k", then the type
    REQUIRE_THAT(error_of(b), Catch::Contains("key 'k'") && Catch::Contains("unknown value type 99"));
  }
  SECTION("duplicate key") {
    GgufWriter w;
    w.kv("k", uint32_t{1});
    w.kv("k", uint32_t{2});
    REQUIRE_THAT(error_of(w.bytes()), Catch::Contains("duplicate key"));
  }
  SECTION("unsupported tensor type") {
    GgufWriter w;
    w.tensor_f32("t", {4}, {1, 2, 3, 4});
    auto b = w.bytes();
    // tensor info: name (8 + 1), n_dims (4), ne (8), type (4)
    put_u32(b, 24 + 9 + 4 + 8, 16);
    REQUIRE_THAT(error_of(b), Catch::Contains("tensor 't'") && Catch::Contains("type 16 is not supported"));
  }
  SECTION("row length not a multiple of the block") {
    GgufWriter w;
    w.tensor_f32("t", {4}, {1, 2, 3, 4});
    auto b = w.bytes();
    put_u32(b, 24 + 9 + 4 + 8, static_cast<uint32_t>(GgmlType::Q8_0));
    REQUIRE_THAT(error_of(b), Catch::Contains("not a multiple of the Q8_0 block size"));
  }
  SECTION("data past the end") {
    auto b = good;
    b.resize(b.size() - 4);
    REQUIRE_THAT(error_of(b), Catch::Contains("tensor 't.b'") && Catch::Contains("past the end"));
  }
}
