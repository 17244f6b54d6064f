// A mapped model file that shrinks while in use (engine/common/sigbus_guard.h): the read that
// fails ends the process with one line naming the file and a non-zero exit status, not a bare
// SIGBUS; a SIGBUS that is not about a guarded mapping still kills as before. Each case runs
// in a forked child, since the guarded outcome is the end of the process.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/mapped_file.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace draftbench;
using Catch::Matchers::Contains;

struct ChildResult {
  int status = 0;
  std::string err;  // the child's stderr
};

// Runs `body` in a forked child whose stderr is captured; the child exits 0 if body returns.
ChildResult in_child(const std::function<void()>& body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  ChildResult r;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.err.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, &r.status, 0);
  return r;
}

std::string write_model(const std::string& path) {
  GgufWriter w;
  w.kv("general.architecture", std::string("llama"));
  w.tensor_f32("big.weight", {1024, 64}, std::vector<float>(1024 * 64, 0.25f));  // 256 KiB: many pages
  w.write(path);
  return path;
}

}  // namespace

TEST_CASE("hostile: a mapped model file truncated while in use is a one-line error naming it, not a bare SIGBUS") {
  test::TempDir dir("hostile_sigbus");
  const std::string path = write_model(dir / "shrinking.gguf");
  const GgufFile file = GgufFile::open(path);
  const GgufTensor& t = file.tensors().at(0);
  REQUIRE(t.n_bytes > 65536);
  volatile float sum = 0;
  for (size_t i = 0; i < t.n_bytes; i += 4096) sum = sum + static_cast<float>(t.data[i]);  // pages read once, as a forward pass would

  const ChildResult r = in_child([&] {
    std::filesystem::resize_file(path, 4096);  // another process rewriting the model in place
    const volatile uint8_t* last = t.data + t.n_bytes - 1;
    (void)*last;
  });
  INFO(r.err);
  REQUIRE(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 1);
  CHECK_THAT(r.err, Contains("draftbench: error: " + path + ": the mapped file shrank while in use"));
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
}

TEST_CASE("hostile: a SIGBUS outside any guarded mapping still kills with the signal") {
  test::TempDir dir("hostile_sigbus_other");
  const MappedFile guarded(write_model(dir / "m.gguf"));  // installs the handler
  const ChildResult r = in_child([] { ::raise(SIGBUS); });
  REQUIRE(WIFSIGNALED(r.status));
  CHECK(WTERMSIG(r.status) == SIGBUS);
  CHECK(r.err.empty());
}
