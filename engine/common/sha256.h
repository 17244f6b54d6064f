// SHA-256 (OpenSSL) as lowercase hex: checksums of shards, model files, drafter weights
// and results records.
#pragma once

#include <string>
#include <string_view>

namespace draftbench {

std::string sha256_hex(std::string_view bytes);
// Throws InputError naming the path when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace draftbench
