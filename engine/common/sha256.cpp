#include "engine/common/sha256.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include "engine/common/error.h"

namespace draftbench {

namespace {

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) { DB_CHECK(ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1); }
  void update(const void* data, size_t n) { DB_CHECK(EVP_DigestUpdate(ctx_.get(), data, n) == 1); }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    DB_CHECK(EVP_DigestFinal_ex(ctx_.get(), digest, &n) == 1);
    std::string out;
    for (unsigned int i = 0; i < n; ++i) out += fmt::format("{:02x}", digest[i]);
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open for reading");
  Sha256 h;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) h.update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(path, "", "read error");
  return h.hex();
}

}  // namespace draftbench
