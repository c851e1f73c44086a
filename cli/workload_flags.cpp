// Registering the workloads' options from the registry (see workload_flags.hpp).
#include "cli/workload_flags.hpp"

#include <algorithm>
#include <set>

#include "plan/presets.hpp"
#include "plan/workload_params.hpp"

namespace allocstress {

namespace {

// " (default 50)", " (default: bintree 100000, linkedlist 10000)" or, where the preset decides,
// " (default: quick 1048576, study 33554432)".
std::string defaults_text(const WorkloadOption& o, const std::vector<const WorkloadEntry*>& takers) {
  if (o.kind == OptionKind::file || !WorkloadFlags::describe_defaults) return "";
  std::map<std::string, std::vector<std::string>> by_value;  // default text -> who has it
  std::set<std::string> preset_texts;
  for (const WorkloadEntry* e : takers)
    for (const std::string& preset : preset_names()) {
      const nlohmann::json d = e->defaults(find_preset(preset).params).value(std::string(o.key), nlohmann::json());
      if (d.is_null()) continue;
      std::string text = option_text(o, d);
      if (o.kind == OptionKind::flag) text = text.empty() ? "off" : "on";
      if (preset == preset_names().front()) by_value[text].emplace_back(e->name);
      preset_texts.insert(preset + " " + text);
    }
  if (by_value.empty()) return "";
  if (by_value.size() == 1 && preset_texts.size() > 1) {  // the same for every workload, but per preset
    std::string out;
    for (const std::string& preset : preset_names())
      for (const auto& t : preset_texts)
        if (t.starts_with(preset + " ")) out += (out.empty() ? "" : ", ") + t;
    return " (default: " + out + ")";
  }
  if (by_value.size() == 1) return " (default " + by_value.begin()->first + ")";
  std::string out;
  for (const auto& [text, names] : by_value)
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n + " " + text;
  return " (default: " + out + ")";
}

}  // namespace

void WorkloadFlags::add_to(CLI::App& app, const std::vector<const WorkloadEntry*>& shown, bool workload_option) {
  const std::vector<const WorkloadEntry*>& entries = workload_registry();
  workload_option_ = app.add_option("--workload", workload, "Workload: " + workload_names_text() + " (default alloc-test)")
                         ->group(workload_option ? std::string(kGeneralWorkloadGroup) : std::string());
  general_.push_back(workload_option_);
  // Each option once, sections in the order of kSizedGroup ... kTraceGroup, general ones first.
  std::vector<const WorkloadOption*> options;
  for (const WorkloadEntry* e : entries)
    for (const WorkloadOption* o : e->options)
      if (std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
  const std::string_view order[] = {kGeneralWorkloadGroup, kSizedGroup, kStructureGroup, kCrossThreadGroup, kLifetimeGroup,
                                    kFalseSharingGroup, kTraceGroup};
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
    CLI::Option* added = o->kind == OptionKind::flag ? app.add_flag(flag, flag_[flag], help) : app.add_option(flag, text_[flag], help);
    added->group(takers.empty() ? std::string() : std::string(o->group));  // "": accepted, not listed
    options_.emplace_back(flag, added);
    if (!o->deprecated_alias.empty()) aliases.insert(o->deprecated_alias);
  }
  for (std::string_view alias : aliases) {
    std::string targets;
    bool listed = false;
    for (const WorkloadOption* o : options)
      if (o->deprecated_alias == alias) {
        targets += (targets.empty() ? "" : ", ") + std::string(o->flag);
        listed = listed || std::any_of(shown.begin(), shown.end(), [&](const WorkloadEntry* e) { return takes_option(*e, o->flag); });
      }
    const std::string flag(alias);
    options_.emplace_back(flag, app.add_option(flag, text_[flag], "Deprecated: use " + targets)->group(listed ? "Deprecated spellings" : ""));
  }
  general_.push_back(app.add_option("--placement", placement,
                                    "Thread placement: " + placement_names() +
                                        " (default compact; one-per-core = SMT off, smt-pairs = both SMT siblings of a core)")
                         ->group("Placement"));
  general_.push_back(app.add_flag("--reserve-os-pu", reserve_os_pu, "Leave the last PU free for the OS")->group("Placement"));
  general_.push_back(app.add_flag("--oversubscribe", oversubscribe, "Allow more worker threads than usable PUs")->group("Placement"));
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
