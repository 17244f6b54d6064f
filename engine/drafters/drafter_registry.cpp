#include "engine/drafters/drafter_registry.h"

#include <deque>

#include "engine/drafters/axis_table.h"
#include "engine/drafters/make_drafter.h"

namespace draftbench {

// The kinds, each defined beside its drafter. A new kind is one line here and one below.
const DrafterKind& medusa_kind();     // medusa/medusa.cpp
const DrafterKind& eagle_kind();      // eagle/eagle.cpp
const DrafterKind& redrafter_kind();  // redrafter/redrafter.cpp
const DrafterKind& ngram_kind();      // ngram/ngram.cpp

namespace {

std::unique_ptr<Drafter> make_autoregressive(DrafterCheckpoint*, const DrafterOptions&, const Model&, ThreadPool&) {
  return std::make_unique<AutoregressiveDrafter>();
}

constexpr DrafterKind kAutoregressive{
    .name = "autoregressive",
    .needs_weights = false,
    .weights_of = "autoregressive",
    .with_lookup = false,
    .make = make_autoregressive,
    .write_random = nullptr,
    .sizes_automatically = nullptr,
    .reads = [](const DrafterOptions&) -> uint32_t { return kEveryDrafter; },
    .estimate = nullptr,
    .config_keys = {},
    .is_reference = nullptr,
    .training = nullptr,
    .pairs_with_lookup = false,
};

bool always(const DrafterOptions&) { return true; }

// The hybrid of a model kind and the n-gram lookup: the model's weights, factory, settings
// and cost, the lookup's drafts merged in, always sized automatically.
DrafterKind hybrid(const DrafterKind& model, const char* name) {
  DrafterKind k = model;
  k.name = name;
  k.with_lookup = true;
  k.write_random = nullptr;
  k.sizes_automatically = always;
  k.config_keys = {};
  k.is_reference = nullptr;
  k.training = nullptr;
  k.pairs_with_lookup = false;
  return k;
}

struct Registry {
  std::deque<std::string> hybrid_names;  // stable storage for the hybrids' names
  std::vector<DrafterKind> kinds;
};

const Registry& registry() {
  static const Registry r = [] {
    Registry r;
    r.kinds = {kAutoregressive, medusa_kind(), eagle_kind(), redrafter_kind(), ngram_kind()};
    const size_t base = r.kinds.size();
    for (size_t i = 0; i < base; ++i)
      if (r.kinds[i].pairs_with_lookup) {
        r.hybrid_names.push_back(std::string(r.kinds[i].name) + "+ngram");
        r.kinds.push_back(hybrid(r.kinds[i], r.hybrid_names.back().c_str()));
      }
    return r;
  }();
  return r;
}

template <typename Keep>
std::string names_where(Keep keep) {
  std::string names;
  for (const DrafterKind& k : registry().kinds)
    if (keep(k)) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

}  // namespace

std::span<const DrafterKind> drafter_kinds() { return registry().kinds; }

const DrafterKind* find_drafter_kind(std::string_view name) {
  for (const DrafterKind& k : registry().kinds)
    if (name == k.name) return &k;
  return nullptr;
}

std::string drafter_weights_kind(std::string_view name) {
  const DrafterKind* k = find_drafter_kind(name);
  return k ? k->weights_of : std::string(name);
}

std::string known_drafters(bool with_weights) {
  return names_where([&](const DrafterKind& k) { return !with_weights || k.write_random; });
}

std::string checkpoint_kinds() {
  return names_where([](const DrafterKind& k) { return !k.config_keys.empty(); });
}

std::string trainable_kinds() {
  return names_where([](const DrafterKind& k) { return k.training != nullptr; });
}

bool sizing_is_auto(const DrafterOptions& o) { return o.sizing == "auto"; }

}  // namespace draftbench
