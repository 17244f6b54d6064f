#include "experiments/spec/experiment_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <span>

#include <yaml-cpp/depthguard.h>

#include "engine/common/error.h"
#include "engine/model/model_aliases.h"
#include "engine/common/input_checks.h"
#include "engine/common/input_file.h"
#include "engine/drafters/make_drafter.h"
#include "experiments/spec/spec_reader.h"

namespace draftbench {

namespace fs = std::filesystem;

namespace {

constexpr int kSchemaVersion = 1;
const char* const kPaperTables[] = {"table1", "table4", "table5", "table6", "figure5", "figure6", "figure7"};

bool is_builtin_kind(const std::string& kind) { return find_drafter_kind(kind) != nullptr; }

using Unit = std::pair<const char*, double>;  // suffix, its scale to bytes or seconds
using Units = std::span<const Unit>;
constexpr Unit kByteUnits[] = {{"", 1.0}, {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
constexpr Unit kSecondUnits[] = {{"", 1.0}, {"s", 1.0}, {"m", 60.0}, {"min", 60.0}, {"h", 3600.0}};
constexpr const char* kBytesExpected = "a size such as 4GiB, 512MiB or 2e9";
constexpr const char* kSecondsExpected = "a duration such as 90s, 10m or 1.5h";
// Past these a cast to uint64_t or a chrono duration would overflow.
constexpr double kMaxBytes = 9.0e18, kMaxSeconds = 1.0e9;

// "4GiB" -> 4 * 2^30: a non-negative number, optionally a space, one of `units`; nothing
// when the text is not that or the result is over `max`.
std::optional<double> parse_scaled(const std::string& text, Units units, double max) {
  size_t end = 0;
  double v = 0;
  try {
    v = std::stod(text, &end);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(end);
  unit.erase(0, unit.find_first_not_of(' '));
  for (const auto& [name, scale] : units)
    if (unit == name && std::isfinite(v) && v >= 0 && v * scale <= max) return v * scale;
  return std::nullopt;
}

class SpecLoader {
 public:
  SpecLoader(const std::string& path, const std::string& root, const std::string& default_model)
      : r_(path), dir_(fs::path(path).parent_path()), root_(root), default_model_(default_model) {}

  ExperimentSpec load() {
    const YAML::Node doc = parse_document();
    r_.only_keys(doc, "",
                 {"schema_version", "name", "description", "model", "threads", "device", "chat", "datasets", "drafters", "sweep", "repeats", "warmup",
                  "baseline", "memory_budget", "time_limit", "paper"});
    ExperimentSpec s;
    s.file = r_.file();
    s.source = yaml_to_json(doc);
    if (!doc["schema_version"]) r_.fail(doc["schema_version"], "schema_version", fmt::format("missing (expected {})", kSchemaVersion));
    const int64_t version = r_.integer(doc["schema_version"], "schema_version", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    if (version != kSchemaVersion)
      r_.fail(doc["schema_version"], "schema_version", fmt::format("unsupported schema version {} (expected {})", version, kSchemaVersion));
    s.name = doc["name"] ? plain_name(doc["name"]) : fs::path(r_.file()).stem().string();
    if (doc["description"]) s.description = r_.text(doc["description"], "description");
    if (doc["model"]) {
      s.model = model_path(doc["model"]);
      // Naming the default model explicitly still gets the drafters shipped for it.
      std::error_code ec;
      s.default_model = fs::exists(default_model_) && fs::equivalent(s.model, default_model_, ec);
      for (const ModelAlias& alias : model_aliases())
        if (fs::exists(root_ / alias.path) && fs::equivalent(s.model, root_ / alias.path, ec)) shipped_drafters_ = root_ / alias.drafters;
    } else {
      s.model = default_model_;
      s.default_model = true;
      shipped_drafters_ = root_ / default_model_alias().drafters;
      if (!fs::exists(s.model))
        r_.fail(doc["model"], "model",
                fmt::format("missing, and the default model {} is not there (expected a model path; scripts/setup.sh fetches the default one)", s.model));
    }
    if (doc["threads"]) s.threads = static_cast<int>(r_.integer(doc["threads"], "threads", 0, max_threads()));
    if (doc["device"]) {
      const std::string device = r_.text(doc["device"], "device");
      const std::optional<ForwardDevice> d = forward_device_named(device);
      if (!d) r_.fail(doc["device"], "device", fmt::format("'{}' (expected cpu, cuda or emulated)", device));
      s.device = *d;
    }
    if (doc["chat"]) s.chat = r_.boolean(doc["chat"], "chat");
    if (doc["repeats"]) s.repeats = static_cast<int>(r_.integer(doc["repeats"], "repeats", 1, 1000));
    if (doc["warmup"]) s.warmup = static_cast<int>(r_.integer(doc["warmup"], "warmup", 0, 1000));
    if (doc["baseline"]) s.baseline = r_.boolean(doc["baseline"], "baseline");
    if (doc["memory_budget"])
      s.memory_budget_bytes = static_cast<uint64_t>(scaled(doc["memory_budget"], "memory_budget", kByteUnits, kMaxBytes, kBytesExpected));
    if (doc["time_limit"]) s.time_limit_s = scaled(doc["time_limit"], "time_limit", kSecondUnits, kMaxSeconds, kSecondsExpected);
    if (doc["paper"]) {
      s.paper_table = r_.text(doc["paper"], "paper");
      if (std::find(std::begin(kPaperTables), std::end(kPaperTables), s.paper_table) == std::end(kPaperTables))
        r_.fail(doc["paper"], "paper", fmt::format("unknown paper table '{}' (expected one of: {})", s.paper_table, fmt::join(kPaperTables, ", ")));
    }
    read_datasets(doc["datasets"], s);
    read_drafters(doc["drafters"], s);
    if (!doc["sweep"]) r_.fail(doc["sweep"], "sweep", "missing (expected a mapping of sweep axes, at least `drafter`)");
    read_sweep(doc["sweep"], s);
    check_weights(doc, s);
    check_static_trees(doc, s);
    return s;
  }

 private:
  SpecReader r_;
  fs::path dir_, root_;
  std::string default_model_;
  fs::path shipped_drafters_;  // the model's shipped drafters (model_aliases.h), or empty

  // The spec file as a document: a regular file under kMaxSpecBytes, UTF-8, valid YAML,
  // within the nesting and alias-expansion bounds of SpecReader::check_bounds.
  YAML::Node parse_document() {
    const std::string text = read_regular_file(r_.file(), "experiment spec", kMaxSpecBytes);
    if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
      throw InputError(r_.file(), fmt::format("line {}", line), fmt::format("byte {} is not valid UTF-8 (expected UTF-8 text)", bad));
    }
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
      throw InputError(r_.file(), fmt::format("line {}", e.mark.line + 1), "nested too deeply (expected a spec nested at most a few levels)");
    } catch (const YAML::ParserException& e) {
      throw InputError(r_.file(), fmt::format("line {}", e.mark.line + 1), fmt::format("not valid YAML or JSON: {}", printable(e.msg)));
    }
    r_.check_bounds(doc);
    return doc;
  }

  // The report directory is reports/<name>: a name is one plain path component.
  std::string plain_name(const YAML::Node& node) {
    const std::string name = r_.text(node, "name");
    const bool plain = name.size() <= 128 && name[0] != '.' &&
                       name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
    if (!plain)
      r_.fail(node, "name",
              fmt::format("'{}' (expected a plain name of letters, digits, '.', '_' and '-', not starting with '.', at most 128 bytes: "
                          "it names the output directory reports/<name>)",
                          printable(name, 60)));
    return name;
  }

  // A size or a duration, failing as every other key does (file, line, key).
  double scaled(const YAML::Node& node, const std::string& key, Units units, double max, const char* expected) {
    const std::string text = r_.text(node, key);
    const std::optional<double> v = parse_scaled(text, units, max);
    if (!v) r_.fail(node, key, fmt::format("'{}' (expected {})", text, expected));
    return *v;
  }

  // Relative to the spec's directory first (a spec next to its data), then the checkout.
  // A regular file or a directory (a checkpoint, drafter weights); a FIFO or a device is
  // refused here, before anything opens it.
  // A path, or a model alias (engine/model/model_aliases.h) resolved in the checkout.
  std::string model_path(const YAML::Node& node) {
    const ModelAlias* alias = find_model_alias(r_.text(node, "model"));
    if (!alias) return existing_path(node, "model");
    const fs::path p = root_ / alias->path;
    if (!fs::exists(p)) r_.fail(node, "model", fmt::format("alias '{}': {} is not there (run {})", alias->name, alias->path, alias->setup));
    return p.string();
  }

  std::string existing_path(const YAML::Node& node, const std::string& key) {
    const fs::path p = r_.text(node, key);
    const auto found = [&](const fs::path& at) {
      std::error_code ec;
      const fs::file_status st = fs::status(at, ec);
      if (ec || !fs::exists(st)) return false;
      if (!fs::is_regular_file(st) && !fs::is_directory(st))
        r_.fail(node, key, fmt::format("'{}' is not a regular file or a directory (expected a file or directory path)", printable(at.string())));
      return true;
    };
    if (p.is_absolute()) {
      if (!found(p)) r_.fail(node, key, fmt::format("'{}' does not exist", printable(p.string())));
      return p.string();
    }
    for (const fs::path& base : {dir_, root_})
      if (found(base / p)) return (base / p).lexically_normal().string();
    r_.fail(node, key, fmt::format("'{}' does not exist (looked in {} and {})", printable(p.string()), dir_.empty() ? "." : dir_.string(), root_.string()));
  }

  void read_datasets(const YAML::Node& node, ExperimentSpec& s) {
    if (!node) r_.fail(node, "datasets", "missing (expected a list of datasets, each with name and path)");
    if (!node.IsSequence() || node.size() == 0) r_.fail(node, "datasets", "expected a non-empty list of datasets");
    std::set<std::string> names;
    for (size_t i = 0; i < node.size(); ++i) {
      const YAML::Node d = node[i];
      const std::string key = fmt::format("datasets[{}]", i);
      r_.only_keys(d, key, {"name", "path", "format", "categories", "split", "limit", "limit_per_category", "turns"});
      DatasetSpec ds;
      if (!d["name"]) r_.fail(d, key + ".name", "missing (expected the dataset's name, as reports label it)");
      ds.name = r_.text(d["name"], key + ".name");
      if (!names.insert(ds.name).second) r_.fail(d["name"], key + ".name", fmt::format("'{}' is named twice (expected unique names)", ds.name));
      if (!d["path"]) r_.fail(d, key + ".path", "missing (expected a prompt file)");
      ds.path = existing_path(d["path"], key + ".path");
      if (d["format"]) {
        const std::string f = r_.text(d["format"], key + ".format");
        try {
          ds.format = parse_prompt_format(f, "");
        } catch (const InputError&) {
          r_.fail(d["format"], key + ".format", fmt::format("unknown format '{}' (expected detect, mt_bench, alpaca, corpus or plain)", f));
        }
      }
      if (d["categories"]) ds.categories = r_.text_list(d["categories"], key + ".categories");
      if (d["split"]) {
        ds.split = r_.text(d["split"], key + ".split");
        if (ds.split != "train" && ds.split != "heldout") r_.fail(d["split"], key + ".split", fmt::format("'{}' (expected train or heldout)", ds.split));
      }
      if (d["limit"]) ds.limit = static_cast<int>(r_.integer(d["limit"], key + ".limit", 1, 1000000));
      if (d["limit_per_category"]) ds.limit_per_category = static_cast<int>(r_.integer(d["limit_per_category"], key + ".limit_per_category", 1, 1000000));
      if (d["turns"]) ds.turns = static_cast<int>(r_.integer(d["turns"], key + ".turns", 1, 16));
      s.datasets.push_back(std::move(ds));
    }
  }

  void read_drafters(const YAML::Node& node, ExperimentSpec& s) {
    if (node) {
      r_.require_map(node, "drafters");
      for (const auto& kv : node) {
        const std::string name = kv.first.Scalar();
        const std::string key = "drafters." + name;
        std::vector<std::string> keys = {"kind", "weights", "ground_truth_weights"};
        for (const Setting& st : settings())
          if (st.spec_key) keys.push_back(st.name);
        r_.only_keys(kv.second, key, keys);
        DrafterSpec d;
        d.name = name;
        d.kind = kv.second["kind"] ? r_.text(kv.second["kind"], key + ".kind") : name;
        if (!is_builtin_kind(d.kind))
          r_.fail(kv.second["kind"] ? kv.second["kind"] : kv.first, key + ".kind",
                  fmt::format("unknown drafter kind '{}' (expected one of: {})", d.kind, known_drafters()));
        // Every speedup divides by the drafter named autoregressive: it must be that kind.
        if (name == "autoregressive" && d.kind != "autoregressive")
          r_.fail(kv.second["kind"], key + ".kind",
                  fmt::format("'{}' (the drafter named autoregressive is every speedup's baseline: expected kind autoregressive)", d.kind));
        if (kv.second["weights"]) d.weights = existing_path(kv.second["weights"], key + ".weights");
        if (kv.second["ground_truth_weights"]) d.ground_truth_weights = existing_path(kv.second["ground_truth_weights"], key + ".ground_truth_weights");
        for (const Setting& st : settings())
          if (st.spec_key && kv.second[st.name]) d.settings[st.name] = setting_value(st, kv.second[st.name], key + "." + st.name);
        s.drafters.push_back(std::move(d));
      }
    }
    for (const DrafterKind& k : drafter_kinds()) {
      const std::string kind = k.name;
      const bool named = std::any_of(s.drafters.begin(), s.drafters.end(), [&](const DrafterSpec& d) { return d.name == kind; });
      if (!named) s.drafters.push_back(DrafterSpec{kind, kind, "", "", nlohmann::json::object()});
    }
  }

  // A value of a setting, type- and range-checked by its axis table entry.
  nlohmann::json setting_value(const Setting& st, const YAML::Node& v, const std::string& key) {
    switch (st.type) {
      case SettingType::integer: return r_.integer(v, key, static_cast<int64_t>(st.lo), static_cast<int64_t>(st.hi));
      case SettingType::number: return r_.number(v, key, st.lo, st.hi);
      case SettingType::boolean: return r_.boolean(v, key);
      case SettingType::path: return existing_path(v, key);
      case SettingType::text: break;
    }
    const std::string text = r_.text(v, key);
    if (!st.choices.empty() && std::find(st.choices.begin(), st.choices.end(), text) == st.choices.end())
      r_.fail(v, key, fmt::format("'{}' (expected {})", text, choices_text(st)));
    return text;
  }

  // One axis value; `drafter` values must name a drafter of the spec.
  nlohmann::json axis_value(const std::string& axis, const YAML::Node& v, const std::string& key, const ExperimentSpec& s) {
    if (axis == "drafter") {
      const std::string name = r_.text(v, key);
      if (std::none_of(s.drafters.begin(), s.drafters.end(), [&](const DrafterSpec& d) { return d.name == name; })) {
        std::string names;
        for (const DrafterSpec& d : s.drafters) names += (names.empty() ? "" : ", ") + d.name;
        r_.fail(v, key, fmt::format("unknown drafter '{}' (expected one of: {})", name, names));
      }
      return name;
    }
    return setting_value(setting(axis), v, key);
  }

  // A scalar, a list, or a range {from, to, step} of numbers (to inclusive).
  std::vector<nlohmann::json> axis_values(const std::string& axis, const YAML::Node& node, const std::string& key, const ExperimentSpec& s) {
    std::vector<nlohmann::json> out;
    if (node.IsSequence()) {
      if (node.size() == 0) r_.fail(node, key, "empty list (expected at least one value)");
      for (size_t i = 0; i < node.size(); ++i) out.push_back(axis_value(axis, node[i], fmt::format("{}[{}]", key, i), s));
    } else if (node.IsMap()) {
      r_.only_keys(node, key, {"from", "to", "step"});
      if (!node["from"] || !node["to"]) r_.fail(node, key, "a range needs `from` and `to` (and optionally `step`)");
      const nlohmann::json from = axis_value(axis, node["from"], key + ".from", s), to = axis_value(axis, node["to"], key + ".to", s);
      if (!from.is_number()) r_.fail(node, key, fmt::format("axis {} takes no range (expected a value or a list)", axis));
      const double step = node["step"] ? r_.number(node["step"], key + ".step", 1e-9, 1e9) : 1.0;
      if (from.is_number_integer() && std::floor(step) != step) r_.fail(node["step"], key + ".step", "expected an integer step for an integer axis");
      if (to.get<double>() < from.get<double>()) r_.fail(node, key, "empty range (expected from <= to)");
      const int64_t n = static_cast<int64_t>(std::floor((to.get<double>() - from.get<double>()) / step + 1e-9)) + 1;
      if (n > 10000) r_.fail(node, key, fmt::format("a range of {} values (expected at most 10000)", n));
      for (int64_t i = 0; i < n; ++i) {
        if (from.is_number_integer()) out.push_back(from.get<int64_t>() + i * static_cast<int64_t>(step));
        // Rounded to 12 decimals so that 0.1 steps give 0.3, not 0.30000000000000004.
        else out.push_back(std::round((from.get<double>() + static_cast<double>(i) * step) * 1e12) / 1e12);
      }
    } else {
      out.push_back(axis_value(axis, node, key, s));
    }
    return out;
  }

  void read_sweep(const YAML::Node& node, ExperimentSpec& s) {
    std::vector<std::string> allowed;
    for (const Setting& st : settings())
      if (st.sweep_axis) allowed.push_back(st.name);
    allowed.insert(allowed.end(), {"zip", "exclude"});
    r_.only_keys(node, "sweep", allowed);
    if (!node["drafter"]) r_.fail(node, "sweep.drafter", "missing (expected the drafters to run, e.g. [autoregressive, redrafter])");
    for (const Setting& st : settings())
      if (st.sweep_axis && node[st.name]) s.sweep.axes[st.name] = axis_values(st.name, node[st.name], std::string("sweep.") + st.name, s);
    if (const YAML::Node zip = node["zip"]) {
      if (!zip.IsSequence() || zip.size() == 0) r_.fail(zip, "sweep.zip", "expected a list of axis groups, e.g. [[beam_width, batch_size]]");
      std::set<std::string> zipped;
      for (size_t g = 0; g < zip.size(); ++g) {
        const std::string key = fmt::format("sweep.zip[{}]", g);
        const std::vector<std::string> group = r_.text_list(zip[g], key);
        if (group.size() < 2) r_.fail(zip[g], key, "expected at least two axes to zip together");
        for (const std::string& axis : group) {
          if (std::count(group.begin(), group.end(), axis) > 1)
            r_.fail(zip[g], key, fmt::format("axis '{}' is listed twice in the group (expected distinct axes)", axis));
          if (!s.sweep.axes.count(axis)) r_.fail(zip[g], key, fmt::format("axis '{}' is not swept (expected axes listed under sweep)", axis));
          if (!zipped.insert(axis).second) r_.fail(zip[g], key, fmt::format("axis '{}' is in two zip groups (expected each axis in at most one)", axis));
          if (s.sweep.axes[axis].size() != s.sweep.axes[group[0]].size())
            r_.fail(zip[g], key,
                    fmt::format("axes '{}' ({} values) and '{}' ({} values) differ in length (zipped axes need equal lengths)", group[0],
                                s.sweep.axes[group[0]].size(), axis, s.sweep.axes[axis].size()));
        }
        s.sweep.zip.push_back(group);
      }
    }
    if (const YAML::Node ex = node["exclude"]) {
      if (!ex.IsSequence()) r_.fail(ex, "sweep.exclude", "expected a list of partial points, e.g. [{drafter: eagle, temperature: 1}]");
      for (size_t i = 0; i < ex.size(); ++i) {
        const std::string key = fmt::format("sweep.exclude[{}]", i);
        r_.require_map(ex[i], key);
        if (ex[i].size() == 0) r_.fail(ex[i], key, "empty (expected at least one axis: value)");
        nlohmann::json match = nlohmann::json::object();
        for (const auto& kv : ex[i]) {
          const std::string axis = kv.first.Scalar();
          if (!is_sweep_axis(axis)) r_.fail(kv.first, key + "." + axis, fmt::format("unknown axis '{}' (expected one of: {})", axis, sweep_axis_names()));
          match[axis] = axis_values(axis, kv.second, key + "." + axis, s);
        }
        s.sweep.exclude.push_back(std::move(match));
      }
    }
  }

  // A static tree chosen by `eagle_static_tree` has no shipped default (Medusa's has):
  // without a `tree` axis every such point would fail when it runs.
  void check_static_trees(const YAML::Node& doc, const ExperimentSpec& s) {
    if (s.sweep.axes.count("tree")) return;
    const Setting& static_tree = setting("eagle_static_tree");
    for (const nlohmann::json& name : s.sweep.axes.at("drafter")) {
      const DrafterSpec& d = s.drafter(name.get<std::string>());
      if (d.options().eagle_static_tree && (find_drafter_kind(d.kind)->reads(DrafterOptions{}) & static_tree.readers))
        r_.fail(doc["drafters"][d.name]["eagle_static_tree"], "drafters." + d.name + ".eagle_static_tree",
                "true, but the sweep has no `tree` axis (expected one: EAGLE has no shipped static tree)");
    }
  }

  // Every drafter the sweep runs has weights before anything runs: its own, or those
  // shipped for the model.
  void check_weights(const YAML::Node& doc, ExperimentSpec& s) {
    const bool distilled_false = s.sweep.axes.count("distilled") && std::any_of(s.sweep.axes["distilled"].begin(), s.sweep.axes["distilled"].end(),
                                                                                [](const nlohmann::json& v) { return !v.get<bool>(); });
    const bool distilled_true = !s.sweep.axes.count("distilled") || std::any_of(s.sweep.axes["distilled"].begin(), s.sweep.axes["distilled"].end(),
                                                                                [](const nlohmann::json& v) { return v.get<bool>(); });
    for (const nlohmann::json& name : s.sweep.axes["drafter"]) {
      DrafterSpec& d = *std::find_if(s.drafters.begin(), s.drafters.end(), [&](const DrafterSpec& x) { return x.name == name.get<std::string>(); });
      if (!find_drafter_kind(d.kind)->needs_weights) continue;
      const std::string key = "drafters." + d.name;
      const YAML::Node at = doc["drafters"] && doc["drafters"][d.name] ? doc["drafters"][d.name] : doc["sweep"]["drafter"];
      auto shipped = [&](const std::string& dir, const char* field) {
        if (shipped_drafters_.empty())
          r_.fail(at, key + "." + field, "missing (expected a weights directory: drafters are shipped only for the models of model_aliases)");
        const fs::path p = shipped_drafters_ / dir;
        if (!fs::exists(p / "drafter.json") && !fs::exists(p / "config.json"))
          r_.fail(at, key + "." + field, fmt::format("missing, and no shipped drafter at {} (expected a weights directory)", p.string()));
        return p.string();
      };
      const std::string weights_kind = drafter_weights_kind(d.kind);
      if (distilled_true && d.weights.empty()) d.weights = shipped(weights_kind, "weights");
      if (distilled_false && d.ground_truth_weights.empty()) d.ground_truth_weights = shipped(weights_kind + "-ground-truth", "ground_truth_weights");
    }
  }
};

}  // namespace

const DrafterSpec& ExperimentSpec::drafter(const std::string& name) const {
  for (const DrafterSpec& d : drafters)
    if (d.name == name) return d;
  throw InputError(file, "drafters", fmt::format("no drafter named '{}'", name));
}

void DrafterSpec::apply(PointSettings& point) const {
  point.drafter.kind = kind;
  for (const auto& [name, value] : settings.items()) apply_setting(setting(name), value, point);
}

DrafterOptions DrafterSpec::options() const {
  PointSettings point;
  apply(point);
  return point.drafter;
}

const DatasetSpec& ExperimentSpec::dataset(const std::string& name) const {
  for (const DatasetSpec& d : datasets)
    if (d.name == name) return d;
  throw InputError(file, "datasets", fmt::format("no dataset named '{}'", name));
}

nlohmann::json resolved_spec_json(const ExperimentSpec& spec) {
  nlohmann::json datasets = nlohmann::json::array();
  for (const DatasetSpec& d : spec.datasets)
    datasets.push_back({{"name", d.name},
                        {"path", d.path},
                        {"format", prompt_format_name(d.format)},
                        {"categories", d.categories},
                        {"split", d.split},
                        {"limit", d.limit},
                        {"limit_per_category", d.limit_per_category},
                        {"turns", d.turns}});
  nlohmann::json drafters = nlohmann::json::array();
  for (const DrafterSpec& d : spec.drafters) {
    nlohmann::json j{{"name", d.name}, {"kind", d.kind}, {"weights", d.weights}, {"ground_truth_weights", d.ground_truth_weights}};
    for (const Setting& st : settings())
      if (st.spec_key) j[st.name] = d.settings.contains(st.name) ? d.settings[st.name] : setting_default(st);
    drafters.push_back(std::move(j));
  }
  nlohmann::json axes = nlohmann::json::object();
  for (const auto& [axis, values] : spec.sweep.axes) axes[axis] = values;
  return {{"file", spec.file},
          {"name", spec.name},
          {"description", spec.description},
          {"model", spec.model},
          {"default_model", spec.default_model},
          {"threads", spec.threads},
          {"device", forward_device_name(spec.device)},
          {"chat", spec.chat},
          {"datasets", datasets},
          {"drafters", drafters},
          {"sweep", {{"axes", axes}, {"zip", spec.sweep.zip}, {"exclude", spec.sweep.exclude}}},
          {"repeats", spec.repeats},
          {"warmup", spec.warmup},
          {"baseline", spec.baseline},
          {"memory_budget_bytes", spec.memory_budget_bytes},
          {"time_limit_s", spec.time_limit_s},
          {"paper", spec.paper_table.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.paper_table)}};
}

ExperimentSpec load_experiment_spec(const std::string& path, const std::string& root, const std::string& default_model) {
  return SpecLoader(path, root, default_model).load();
}

}  // namespace draftbench
