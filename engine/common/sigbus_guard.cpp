#include "engine/common/sigbus_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "engine/common/printable.h"

namespace draftbench {
namespace {

constexpr size_t kPathBytes = 512;

// One registered mapping. `state`: 0 free, 1 being written by its registrant, 2 live. The
// handler reads a slot only while it is live; begin/end/path are written before the state
// turns live (release) and read after it is seen live (acquire).
struct Slot {
  std::atomic<int> state{0};
  std::atomic<uintptr_t> begin{0}, end{0};
  char path[kPathBytes] = {};  // printable() text, NUL-terminated
};

// Process-wide because a signal handler can reach nothing else (see the header).
Slot g_slots[kSigbusGuardSlots];
struct sigaction g_previous {};        // written once, before the handler can run
std::atomic<bool> g_reporting{false};  // a thread is writing the one line

// The message is built in one buffer and written with one write(2), so that nothing else
// written to stderr lands inside it.
class Line {
 public:
  void add(const char* text) {
    while (*text && n_ < sizeof buf_ - 1) buf_[n_++] = *text++;
  }
  void add(uint64_t v) {
    char digits[24];
    size_t k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v > 0);
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = digits[--k];
  }
  void write_to_stderr() {
    buf_[n_++] = '\n';
    for (size_t done = 0; done < n_;) {
      const ssize_t w = ::write(STDERR_FILENO, buf_ + done, n_ - done);
      if (w <= 0) return;
      done += static_cast<size_t>(w);
    }
  }

 private:
  char buf_[kPathBytes + 256];
  size_t n_ = 0;
};

// Async-signal-safe: atomics, write(2), pause(2), _exit(2), sigaction(2), raise(3) only.
void on_sigbus(int sig, siginfo_t* info, void* context) {
  // si_code > 0: raised by the kernel for a fault (not kill()/raise()), so si_addr is the address.
  if (info && info->si_code > 0) {
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot& s : g_slots) {
      if (s.state.load(std::memory_order_acquire) != 2) continue;
      const uintptr_t begin = s.begin.load(std::memory_order_relaxed);
      if (addr < begin || addr >= s.end.load(std::memory_order_relaxed)) continue;
      // Several threads may fault on the same shrunk file at once: one reports, the others
      // wait for its _exit, which ends them all.
      if (g_reporting.exchange(true)) {
        for (;;) ::pause();
      }
      Line line;
      line.add("draftbench: error: ");
      line.add(s.path);
      line.add(": the mapped file shrank while in use (a read at byte ");
      line.add(static_cast<uint64_t>(addr - begin));
      line.add(" failed): it was truncated or rewritten; a model file must not change while draftbench runs");
      line.write_to_stderr();
      ::_exit(1);
    }
  }
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // Not ours: back to the default action, which the same fault meets again on return.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGBUS, &dfl, nullptr);
  if (info && info->si_code <= 0) ::raise(SIGBUS);  // a sent signal does not recur by itself
}

bool install_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  ::sigemptyset(&sa.sa_mask);
  return ::sigaction(SIGBUS, &sa, &g_previous) == 0;
}

}  // namespace

void guard_mapping(const void* begin, size_t size, std::string_view path) {
  static const bool installed = install_handler();  // once per process, thread-safe
  if (!installed || begin == nullptr || size == 0) return;
  for (Slot& s : g_slots) {
    int expected = 0;
    if (!s.state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    const std::string text = printable(path, kPathBytes - 64);
    std::memcpy(s.path, text.c_str(), text.size() + 1);
    s.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(begin) + size, std::memory_order_relaxed);
    s.state.store(2, std::memory_order_release);
    return;
  }
}

void unguard_mapping(const void* begin) {
  if (begin == nullptr) return;
  for (Slot& s : g_slots) {
    int expected = 2;
    if (s.begin.load(std::memory_order_relaxed) != reinterpret_cast<uintptr_t>(begin)) continue;
    if (s.state.compare_exchange_strong(expected, 0, std::memory_order_release)) return;
  }
}

}  // namespace draftbench
