// Selecting the most probable tokens for top-k and top-p filtering. The order is total:
// larger weight first, equal weights by smaller index, so every method that computes it
// gives the same ids in the same order.
//
//   *_ref  sorts all n ids (the plain definition)
//   top_k, top_mass  a bounded heap over one pass of the weights (O(n log k), no n-sized
//          buffer); top_mass grows its bound until the mass is reached. Identical results.
#pragma once

#include <cstdint>
#include <vector>

namespace draftbench {

// The min(k, n) best ids, best first, into ids (resized).
void top_k_ref(const float* w, int64_t n, int64_t k, std::vector<int32_t>& ids);
void top_k(const float* w, int64_t n, int64_t k, std::vector<int32_t>& ids);

// The shortest prefix of the order whose weights, summed in double one after the other,
// reach `mass` (all n ids if none does), into ids (resized).
void top_mass_ref(const float* w, int64_t n, double mass, std::vector<int32_t>& ids);
void top_mass(const float* w, int64_t n, double mass, std::vector<int32_t>& ids);

// Cuts ids (already in the order) to the shortest prefix reaching `mass`, and says whether
// one did; ids stay whole if not. top-p over ids that top-k chose uses it directly.
bool keep_mass_prefix(const float* w, double mass, std::vector<int32_t>& ids);

}  // namespace draftbench
