// Registering the workloads' options from the registry (see workload_flags.hpp).
#include "cli/workload_flags.hpp"

#include <algorithm>
#include <set>

#include "plan/presets.hpp"
#include "plan/programs_file.hpp"
#include "plan/workload_params.hpp"

namespace allocstress {

namespace {

// " (default 50)", " (default: bintree 100000, linkedlist 10000)" or, where the preset decides,
// " (default: quick 1048576, study 33554432)".
std::string defaults_text(const WorkloadOption& o, const std::vector<const WorkloadEntry*>& takers) {
  if (o.kind == OptionKind::file || !WorkloadFlags::describe_defaults || takers.empty()) return "";
  auto text_of = [&](const WorkloadEntry& e, const std::string& preset) -> std::string {
    const nlohmann::json d = e.defaults(find_preset(preset).params).value(std::string(o.key), nlohmann::json());
    if (d.is_null()) return "";
    const std::string t = option_text(o, d);
    return o.kind == OptionKind::flag ? (t.empty() ? "off" : "on") : t;
  };
  // Where the preset decides (the sizes): one value per preset, the same for every workload.
  std::vector<std::string> per_preset;
  for (const std::string& preset : preset_names()) per_preset.push_back(text_of(*takers.front(), preset));
  if (std::any_of(per_preset.begin(), per_preset.end(), [&](const std::string& t) { return t != per_preset.front(); })) {
    std::string out;
    for (std::size_t i = 0; i < per_preset.size(); ++i) out += (i ? ", " : "") + preset_names()[i] + " " + per_preset[i];
    return " (default: " + out + ")";
  }
  std::map<std::string, std::vector<std::string>> by_value;  // default text -> the workloads that have it
  for (const WorkloadEntry* e : takers)
    if (const std::string t = text_of(*e, preset_names().front()); !t.empty()) by_value[t].emplace_back(e->name);
  if (by_value.empty()) return "";
  // The most common default, then the workloads that differ from it.
  const auto common = std::max_element(by_value.begin(), by_value.end(), [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  if (common->second.size() == 1) {  // no common default: each workload's
    std::string each;
    for (const WorkloadEntry* e : takers) each += (each.empty() ? "" : ", ") + std::string(e->name) + " " + text_of(*e, preset_names().front());
    return " (default: " + each + ")";
  }
  std::string out = "default " + common->first;
  for (const auto& [text, names] : by_value)
    if (text != common->first)
      for (const auto& n : names) out += (out.find(';') == std::string::npos ? "; " : ", ") + n + " " + text;
  return " (" + out + ")";
}

// The placeholder --help shows for an option's value.
std::string type_name(OptionKind kind) {
  switch (kind) {
    case OptionKind::count: return "N";
    case OptionKind::number: return "X";
    case OptionKind::percent: return "PERCENT";
    case OptionKind::word: return "WORD";
    case OptionKind::file: return "FILE";
    case OptionKind::flag: return "";
  }
  return "";
}

}  // namespace

std::vector<ProgramDefinition> WorkloadFlags::programs() const {
  if (programs_file.empty()) return {};
  return read_programs_file(programs_file).programs;
}

void WorkloadFlags::add_to(CLI::App& app, const std::vector<const WorkloadEntry*>& shown, bool workload_option) {
  const std::vector<const WorkloadEntry*>& entries = workload_registry();
  workload_option_ = app.add_option("--workload", workload, "Workload: " + workload_names_text() + " (default alloc-test)")
                         ->group(workload_option ? std::string(kGeneralWorkloadGroup) : std::string());
  general_.push_back(workload_option_);
  general_.push_back(app.add_option("--programs-file", programs_file,
                                    "A programs file (TOML, docs/programs-file.md): its programs become workloads --workload can name")
                         ->group(workload_option ? std::string(kGeneralWorkloadGroup) : std::string()));
  // Each option once, sections in the order of kSizedGroup ... kTraceGroup, general ones first.
  std::vector<const WorkloadOption*> options;
  for (const WorkloadEntry* e : entries)
    for (const WorkloadOption* o : e->options)
      if (std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
  const std::string_view order[] = {kGeneralWorkloadGroup, kSizedGroup, kStructureGroup, kCrossThreadGroup, kLifetimeGroup,
                                    kPhaseGroup,          kFalseSharingGroup, kTraceGroup,       kProgramGroup};
  std::stable_sort(options.begin(), options.end(), [&](const WorkloadOption* a, const WorkloadOption* b) {
    return std::find(std::begin(order), std::end(order), a->group) < std::find(std::begin(order), std::end(order), b->group);
  });
  std::set<std::string_view> aliases;
  for (const WorkloadOption* o : options) {
    std::vector<const WorkloadEntry*> takers;
    for (const WorkloadEntry* e : shown)
      if (takes_option(*e, o->flag)) takers.push_back(e);
    const std::string flag(o->flag);
    const std::string help = std::string(o->help) + defaults_text(*o, takers) +
                             (takers.size() < shown.size() && shown.size() > 1 ? " [" + workload_list_text(takers) + "]" : "");
    CLI::Option* added = o->kind == OptionKind::flag ? app.add_flag(flag, flag_[flag], help)
                                                     : app.add_option(flag, text_[flag], help)->type_name(type_name(o->kind));
    added->group(takers.empty() ? std::string() : std::string(o->group));  // "": accepted, not listed
    options_.emplace_back(flag, added);
    if (!o->deprecated_alias.empty()) aliases.insert(o->deprecated_alias);
  }
  for (std::string_view alias : aliases) aliases_.emplace_back(alias);
  shown_ = shown;
}

void WorkloadFlags::add_placement_to(CLI::App& app) {
  general_.push_back(app.add_option("--placement", placement,
                                    "Thread placement: " + placement_names() +
                                        " (default compact; one-per-core = SMT off, smt-pairs = both SMT siblings of a core)")
                         ->group("Placement"));
  general_.push_back(app.add_flag("--reserve-os-pu", reserve_os_pu, "Leave the last PU free for the OS")->group("Placement"));
  general_.push_back(app.add_flag("--oversubscribe", oversubscribe, "Allow more worker threads than usable PUs")->group("Placement"));
}

void WorkloadFlags::add_deprecated_to(CLI::App& app) {
  std::vector<const WorkloadOption*> options;
  for (const WorkloadEntry* e : workload_registry())
    for (const WorkloadOption* o : e->options)
      if (std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
  for (std::string_view alias : aliases_) {
    std::string targets;
    bool listed = false;
    for (const WorkloadOption* o : options)
      if (o->deprecated_alias == alias) {
        targets += (targets.empty() ? "" : ", ") + std::string(o->flag);
        listed = listed || std::any_of(shown_.begin(), shown_.end(), [&](const WorkloadEntry* e) { return takes_option(*e, o->flag); });
      }
    const std::string flag(alias);
    options_.emplace_back(flag, app.add_option(flag, text_[flag], "Deprecated: use " + targets)->group(listed ? "Deprecated spellings" : ""));
  }
}

OptionValues WorkloadFlags::given() const {
  OptionValues out;
  for (const auto& [flag, option] : options_)
    if (option->count() > 0) out[flag] = flag_.count(flag) ? (flag_.at(flag) ? "true" : "false") : text_.at(flag);
  return out;
}

std::string WorkloadFlags::first_given() const {
  for (const auto& [flag, option] : options_)
    if (option->count() > 0) return flag;
  for (const CLI::Option* o : general_)
    if (o->count() > 0) return o->get_name();
  return "";
}

}  // namespace allocstress
