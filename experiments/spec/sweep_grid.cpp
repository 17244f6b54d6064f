#include "experiments/spec/sweep_grid.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "engine/common/error.h"
#include "engine/drafters/axis_table.h"

namespace draftbench {

namespace {

bool matches(const nlohmann::json& exclusion, const nlohmann::json& full) {
  for (const auto& [axis, values] : exclusion.items())
    if (std::find(values.begin(), values.end(), full[axis]) == values.end()) return false;
  return true;
}

// The grid's dimensions: a lone axis, or a zip group advancing together.
struct Dimension {
  std::vector<std::string> axes;
  size_t size = 0;
};

std::vector<Dimension> dimensions(const SweepSpec& sweep) {
  std::vector<Dimension> dims;
  std::set<std::string> placed;
  for (const Setting& s : settings()) {
    const std::string axis = s.name;
    if (!s.sweep_axis || !sweep.axes.count(axis) || placed.count(axis)) continue;
    Dimension d{{axis}, sweep.axes.at(axis).size()};
    for (const auto& group : sweep.zip)
      if (std::find(group.begin(), group.end(), axis) != group.end()) d.axes = group;
    for (const std::string& a : d.axes) placed.insert(a);
    dims.push_back(std::move(d));
  }
  return dims;
}

}  // namespace

std::string SweepPoint::key() const { return nlohmann::json{{"dataset", dataset}, {"params", params}}.dump(); }

nlohmann::json SweepPoint::to_json() const {
  nlohmann::json j{{"key", key()}, {"dataset", dataset}, {"drafter", drafter}, {"kind", kind}, {"params", params}};
  if (!baseline.empty()) j["baseline"] = baseline;
  if (added_baseline) j["added_baseline"] = true;
  return j;
}

std::vector<std::string> axes_read_by(const DrafterSpec& drafter) {
  const DrafterKind* kind = find_drafter_kind(drafter.kind);
  DB_CHECK(kind != nullptr);
  const uint32_t reads = kind->reads(drafter.options());
  std::vector<std::string> axes;
  for (const Setting& s : settings())
    if (s.sweep_axis && (s.readers & reads)) axes.push_back(s.name);
  return axes;
}

uint64_t planned_grid_points(const ExperimentSpec& spec) {
  uint64_t n = spec.datasets.size();
  for (const Dimension& d : dimensions(spec.sweep)) {
    if (d.size != 0 && n > UINT64_MAX / d.size) return UINT64_MAX;
    n *= d.size;
  }
  return n;
}

std::vector<SweepPoint> expand_sweep(const ExperimentSpec& spec, uint64_t max_points) {
  const std::vector<Dimension> dims = dimensions(spec.sweep);
  if (const uint64_t planned = planned_grid_points(spec); planned > max_points) {
    std::string shape;
    for (const Dimension& d : dims) shape += fmt::format("{} {} x ", d.size, fmt::join(d.axes, "+"));
    throw InputError(spec.file, "key sweep",
                     fmt::format("plans {} points ({}{} datasets) before exclusions (expected at most {}; `draftbench run --max-points N` raises the limit)",
                                 planned == UINT64_MAX ? std::string("over 1.8e19") : std::to_string(planned), shape, spec.datasets.size(), max_points));
  }
  std::vector<SweepPoint> grid;
  std::set<std::string> seen;
  std::vector<size_t> at(dims.size(), 0);
  for (bool more = true; more;) {
    nlohmann::json full = nlohmann::json::object();
    for (const Setting& s : settings())
      if (s.sweep_axis && std::string_view(s.name) != "drafter") full[s.name] = setting_default(s);
    for (size_t d = 0; d < dims.size(); ++d)
      for (const std::string& axis : dims[d].axes) full[axis] = spec.sweep.axes.at(axis)[at[d]];
    const bool excluded = std::any_of(spec.sweep.exclude.begin(), spec.sweep.exclude.end(), [&](const nlohmann::json& e) { return matches(e, full); });
    if (!excluded) {
      const DrafterSpec& drafter = spec.drafter(full["drafter"].get<std::string>());
      nlohmann::json params = nlohmann::json::object();
      for (const std::string& axis : axes_read_by(drafter)) params[axis] = full[axis];
      for (const DatasetSpec& ds : spec.datasets) {
        SweepPoint p{ds.name, drafter.name, drafter.kind, params, "", false};
        if (seen.insert(p.key()).second) grid.push_back(std::move(p));
      }
    }
    // Odometer over the dimensions, the last one fastest.
    more = false;
    for (size_t d = dims.size(); d-- > 0;) {
      if (++at[d] < dims[d].size) {
        more = true;
        break;
      }
      at[d] = 0;
    }
  }
  if (grid.empty()) throw InputError(spec.file, "key sweep.exclude", "excludes every point (expected at least one point left to run)");
  if (!spec.baseline) return grid;

  // Each speedup divides by the autoregressive point with the same dataset, temperature,
  // batch size, length and seed, run in this sweep: add the ones the grid lacks.
  const DrafterSpec& ar = spec.drafter("autoregressive");
  std::vector<SweepPoint> out;
  for (SweepPoint& p : grid) {
    if (p.kind != "autoregressive") {
      nlohmann::json params = nlohmann::json::object();
      for (const std::string& axis : axes_read_by(ar)) params[axis] = axis == "drafter" ? nlohmann::json(ar.name) : p.params[axis];
      SweepPoint base{p.dataset, ar.name, ar.kind, params, "", true};
      p.baseline = base.key();
      if (seen.insert(base.key()).second) out.push_back(std::move(base));
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace draftbench
