// Workload selection, option scope and parameters (see workload_params.hpp).
#include "plan/workload_params.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "plan/programs_file.hpp"
#include "platform/errors.hpp"

namespace allocstress {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<const WorkloadEntry*> entries_of(const std::vector<std::string>& workloads) {
  std::vector<const WorkloadEntry*> out;
  for (const auto& w : workloads) out.push_back(&workload_entry(w));
  return out;
}

// Every registered option, each once, in registry order.
std::vector<const WorkloadOption*> all_options() {
  std::vector<const WorkloadOption*> out;
  for (const WorkloadEntry* e : workload_registry())
    for (const WorkloadOption* o : e->options)
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  return out;
}

}  // namespace

std::string workload_list_text(const std::vector<const WorkloadEntry*>& entries) {
  std::vector<std::string> names;
  std::set<std::string_view> families_done;
  for (const WorkloadEntry* e : entries) {
    if (families_done.count(e->family)) continue;
    // The family's members, and whether all of them are here and share a "prefix-".
    std::vector<const WorkloadEntry*> family;
    for (const WorkloadEntry* f : workload_registry())
      if (f->family == e->family) family.push_back(f);
    const auto dash = e->name.rfind('-');
    const std::string_view prefix = dash == std::string_view::npos ? std::string_view() : e->name.substr(0, dash + 1);
    const bool whole = family.size() > 1 && !prefix.empty() && std::all_of(family.begin(), family.end(), [&](const WorkloadEntry* f) {
      return f->name.starts_with(prefix) && std::find(entries.begin(), entries.end(), f) != entries.end();
    });
    if (whole) {
      names.push_back(std::string(prefix) + "*");
      families_done.insert(e->family);
    } else {
      names.emplace_back(e->name);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::vector<std::string> selected_workloads(const std::string& text, bool allow_list) {
  std::vector<std::string> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ','))
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  const std::string accepted = workload_names_text();
  if (out.empty()) throw UsageError("--workload '" + text + "' names no workload (accepted: " + accepted + ")");
  if (out.size() > 1 && !allow_list) throw UsageError("run takes one workload, got '" + text + "' (accepted: one of " + accepted + ")");
  for (const auto& w : out)
    if (find_workload(w) == nullptr) {
      try {
        workload_entry(w);  // throws: the unknown name or the bad label, with what is accepted
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
  for (const auto& w : out)
    if (const WorkloadEntry& e = workload_entry(w); !e.runs_alone.empty() && out.size() > 1) {
      std::vector<std::string> others = out;
      std::erase(others, w);
      throw UsageError(w + " cannot share a matrix with " + joined(others) + ": " + std::string(e.runs_alone) + " (run it alone)");
    }
  return out;
}

std::vector<std::string> resolve_deprecated_options(const std::vector<std::string>& workloads, OptionValues& given) {
  std::vector<std::string> warnings;
  std::set<std::string_view> aliases;
  for (const WorkloadOption* o : all_options())
    if (!o->deprecated_alias.empty()) aliases.insert(o->deprecated_alias);
  for (std::string_view alias : aliases) {
    const auto it = given.find(std::string(alias));
    if (it == given.end()) continue;
    std::vector<std::string> replaced_by;
    for (const WorkloadOption* o : all_options()) {
      if (o->deprecated_alias != alias) continue;
      const bool taken = std::any_of(workloads.begin(), workloads.end(), [&](const std::string& w) { return takes_option(workload_entry(w), o->flag); });
      if (!taken || given.count(std::string(o->flag))) continue;
      given[std::string(o->flag)] = it->second;
      replaced_by.emplace_back(o->flag);
    }
    if (replaced_by.empty()) {
      std::vector<const WorkloadEntry*> takers;
      for (const WorkloadOption* o : all_options())
        if (o->deprecated_alias == alias)
          for (const WorkloadEntry* e : workload_registry())
            if (takes_option(*e, o->flag)) takers.push_back(e);
      throw UsageError(std::string(alias) + " applies to " + workload_list_text(takers) + " only, not to " + joined(workloads));
    }
    warnings.push_back(std::string(alias) + " is deprecated: it now means " + joined(replaced_by) + " here (write that instead)");
    given.erase(it);
  }
  return warnings;
}

void check_option_scope(const std::vector<std::string>& workloads, const OptionValues& given) {
  const std::vector<const WorkloadEntry*> chosen = entries_of(workloads);
  for (const WorkloadOption* o : all_options()) {
    if (!given.count(std::string(o->flag))) continue;
    if (std::any_of(chosen.begin(), chosen.end(), [&](const WorkloadEntry* e) { return takes_option(*e, o->flag); })) continue;
    std::vector<const WorkloadEntry*> takers;
    for (const WorkloadEntry* e : workload_registry())
      if (takes_option(*e, o->flag)) takers.push_back(e);
    throw UsageError(std::string(o->flag) + " applies to " + workload_list_text(takers) + " only, not to " + joined(workloads));
  }
  for (const WorkloadEntry* e : chosen)
    for (const WorkloadOption* o : e->options)
      if (!o->needed_for.empty() && !given.count(std::string(o->flag)))
        throw UsageError("--workload " + std::string(e->name) + " needs " + std::string(o->flag) + " " + std::string(o->needed_for));
}

nlohmann::json workload_params(const WorkloadEntry& entry, const AllocTestParams& preset, const OptionValues& given) {
  nlohmann::json params = entry.defaults(preset);
  for (const WorkloadOption* o : entry.options)
    if (const auto it = given.find(std::string(o->flag)); it != given.end()) params[std::string(o->key)] = option_value(*o, it->second);
  if (entry.input_defaults != nullptr && !given.count(std::string(kSeedOption.flag))) {
    try {
      if (const InputDefaults d = entry.input_defaults(params, nlohmann::json::object()); d.seed) params[std::string(kSeedOption.key)] = *d.seed;
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return params;
}

nlohmann::json workload_params(const std::string& name, const AllocTestParams& preset, const OptionValues& given,
                               const std::vector<ProgramDefinition>& programs) {
  const WorkloadEntry& entry = workload_entry(name);
  if (entry.table != TableKind::program) {
    nlohmann::json params = workload_params(entry, preset, given);
    const std::string_view label = workload_label(name);
    if (label.empty() || entry.label_params == nullptr) return params;
    nlohmann::json implied;
    try {
      implied = entry.label_params(label);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    for (const auto& [key, value] : implied.items()) {
      for (const WorkloadOption* o : entry.options)
        if (o->key == key && given.count(std::string(o->flag)) && params.at(key) != value)
          throw UsageError(std::string(o->flag) + " " + given.at(std::string(o->flag)) + " contradicts the workload's label " + name +
                           " (accepted: leave " + std::string(o->flag) + " out, or name the workload " + std::string(workload_base_name(name)) + ")");
      params[key] = value;
    }
    return params;
  }
  const ProgramDefinition* p = find_program_definition(std::string(workload_base_name(name)), programs);
  if (p == nullptr)
    throw UsageError("no definition of program '" + name + "' (accepted: a program of the shipped file, " + shipped_programs().names() +
                     ", or of --programs-file FILE)");
  if (!workload_label(name).empty()) throw UsageError("a program workload takes no label: '" + name + "' (accepted: " + p->name + ")");
  nlohmann::json params = entry.defaults(preset);
  params["program"] = to_json(*p);
  params["program_threads"] = p->threads;
  for (const WorkloadOption* o : entry.options)
    if (const auto it = given.find(std::string(o->flag)); it != given.end()) params[std::string(o->key)] = option_value(*o, it->second);
  return params;
}

nlohmann::json counts_params(const WorkloadEntry& entry, nlohmann::json params, std::uint64_t cap) {
  if (entry.counts_prefix.empty()) return params;
  const std::string key(entry.counts_prefix);
  if (params.contains(key) && params.at(key).is_number_unsigned() && params.at(key).get<std::uint64_t>() > cap) params[key] = cap;
  return params;
}

std::vector<std::string> option_arguments(const WorkloadEntry& entry, const nlohmann::json& params) {
  std::vector<std::string> out;
  for (const WorkloadOption* o : entry.options) {
    const auto it = params.find(std::string(o->key));
    if (it == params.end() || it->is_null()) continue;
    const std::string text = option_text(*o, *it);
    if (o->kind == OptionKind::flag) {
      if (!text.empty()) out.emplace_back(o->flag);
      continue;
    }
    out.emplace_back(o->flag);
    out.push_back(text);
  }
  return out;
}

}  // namespace allocstress
