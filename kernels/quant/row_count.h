// The dispatch of an activation-row count to a kernel unrolled over its rows, shared by the
// x86 product builds (no intrinsics here, so every build can include it).
#pragma once

#include <type_traits>

namespace draftbench {

// f(std::integral_constant<int, m>) with m = min(n, kMax), n >= 1: a batch kernel then keeps
// its m rows' accumulators in registers.
template <int kMax, typename F>
void with_row_count(int n, F f) {
  static_assert(kMax >= 1);
  if constexpr (kMax == 1) {
    f(std::integral_constant<int, 1>{});
  } else {
    if (n >= kMax) return f(std::integral_constant<int, kMax>{});
    with_row_count<kMax - 1>(n, f);
  }
}

}  // namespace draftbench
