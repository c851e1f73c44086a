// The list of workloads, and the rules every layer applies through it (see workload_registry.hpp).
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "cells/measured_phase.hpp"
#include "cells/programs/program_workloads.hpp"
#include "cells/record_identity.hpp"
#include "cells/modes/soak.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/errors.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {

// Defined in the cell files, one per workload.
extern const WorkloadEntry kAllocTestEntry, kBinTreeEntry, kLinkedListEntry, kMultiListEntry, kXThreadEntry, kLarsonEntry,
    kLifetimeEntry, kFleetProfileEntry, kPhaseRampEntry, kPhasePlateauEntry, kPhasePeakEntry, kFalseSharingActiveEntry, kFalseSharingPassiveEntry,
    kReplayEntry, kFittedEntry, kProgramEntry;

const std::vector<const WorkloadEntry*>& workload_registry() {
  static const std::vector<const WorkloadEntry*> entries = {
      &kAllocTestEntry,       &kBinTreeEntry,      &kLinkedListEntry,        &kMultiListEntry,          &kXThreadEntry,
      &kLarsonEntry,          &kLifetimeEntry,     &kFleetProfileEntry,      &kPhaseRampEntry,         &kPhasePlateauEntry,       &kPhasePeakEntry,
      &kFalseSharingActiveEntry, &kFalseSharingPassiveEntry, &kReplayEntry, &kFittedEntry, &kProgramEntry,
  };
  return entries;
}

bool valid_workload_label(std::string_view label) {
  return !label.empty() && label.size() <= 64 && std::all_of(label.begin(), label.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}
std::string_view workload_base_name(std::string_view name) { return name.substr(0, name.find(':')); }
std::string_view workload_label(std::string_view name) {
  const auto colon = name.find(':');
  return colon == std::string_view::npos ? std::string_view() : name.substr(colon + 1);
}

const WorkloadEntry* registry_workload(std::string_view name) {
  for (const WorkloadEntry* e : workload_registry())
    if (e->name == name) return e;
  return nullptr;
}

const WorkloadEntry* find_workload(std::string_view name) {
  if (name.find(':') != std::string_view::npos && !valid_workload_label(workload_label(name))) return nullptr;
  const std::string_view base = workload_base_name(name);
  if (const WorkloadEntry* e = registry_workload(base)) return e;
  return is_declared_program(base) ? &kProgramEntry : nullptr;
}

bool is_program_workload(std::string_view name) {
  const WorkloadEntry* e = find_workload(name);
  return e != nullptr && e->table == TableKind::program;
}

nlohmann::json workload_registry_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const WorkloadEntry* e : workload_registry()) {
    nlohmann::json options = nlohmann::json::array(), metrics = nlohmann::json::array(), companions = nlohmann::json::array();
    for (const WorkloadOption* o : e->options) options.push_back(o->flag);
    for (const Metric* m : e->metrics) metrics.push_back(m->name);
    for (std::string_view c : e->companions) companions.push_back(c);
    const char* table = e->table == TableKind::net_cost      ? "net_cost"
                        : e->table == TableKind::structure   ? "structure"
                        : e->table == TableKind::program     ? "program"
                                                             : "false_sharing";
    out.push_back({{"name", e->name},
                   {"family", e->family},
                   {"summary", e->summary},
                   {"void_baseline", e->void_baseline},
                   {"table", table},
                   {"simulates_caches", e->simulates_caches},
                   {"profiles", e->profiles},
                   {"counts", e->counts},
                   {"counts_threads", e->counts_threads},
                   {"runs_alone", !e->runs_alone.empty()},
                   {"companions", companions},
                   {"companion_reason", e->companion_reason},
                   {"void_refusal", e->void_refusal},
                   {"options", options},
                   {"metrics", metrics}});
  }
  return out;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> out;
  for (const WorkloadEntry* e : workload_registry())
    if (e != &kProgramEntry) out.emplace_back(e->name);
  for (const std::string& name : declared_program_names()) out.push_back(name);
  return out;
}

std::string workload_names_text() {
  std::string out;
  for (const std::string& name : workload_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

const WorkloadEntry& workload_entry(std::string_view name) {
  if (const WorkloadEntry* e = find_workload(name)) return *e;
  if (name.find(':') != std::string_view::npos && find_workload(workload_base_name(name)) != nullptr)
    throw std::invalid_argument("bad workload label in '" + std::string(name) + "' (accepted: WORKLOAD:LABEL, LABEL of 1..64 letters, digits, '-', '_', '.')");
  throw std::invalid_argument("unknown workload '" + std::string(name) + "' (accepted: " + workload_names_text() + ", each optionally as WORKLOAD:LABEL)");
}

const Metric* headline_metric(const WorkloadEntry& entry) {
  for (const Metric* m : entry.metrics)
    if (m->headline) return m;
  return nullptr;
}

const Metric* memory_headline_metric(const WorkloadEntry& entry) {
  for (const Metric* m : entry.metrics)
    if (m->memory_headline) return m;
  return nullptr;
}

bool takes_option(const WorkloadEntry& entry, std::string_view flag) {
  return std::any_of(entry.options.begin(), entry.options.end(), [&](const WorkloadOption* o) { return o->flag == flag; });
}

std::string refusal_reason(const WorkloadEntry& entry, const AllocatorSpec& allocator, const nlohmann::json& params, unsigned threads) {
  if (allocator.name == kBaselineAllocator && !entry.void_baseline) return std::string(entry.void_refusal);
  return entry.refusal ? entry.refusal(allocator, params, threads) : "";
}

nlohmann::json record_params(const Cell& cell) {
  const WorkloadEntry* e = find_workload(cell.workload);
  return e != nullptr && e->record_params != nullptr ? e->record_params(cell.params, cell.threads) : cell.params;
}

std::string names_with(bool WorkloadEntry::*capability) {
  std::vector<std::string> names;
  for (const WorkloadEntry* e : workload_registry())
    if (e->*capability) names.emplace_back(e->name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

namespace {

void check_mode(const Cell& cell, const WorkloadEntry& entry, const AllocatorSpec& allocator) {
  if (cell.mode == CellMode::simulate) {
    if (!entry.simulates_caches)
      throw UsageError("--cache-sim applies to " + names_with(&WorkloadEntry::simulates_caches) + " (their search phase), not to " +
                       cell.workload);
    if (const std::string missing = cache_simulation_unavailable(); !missing.empty()) throw UsageError(missing);
  }
  if (cell.mode == CellMode::counts) {
    if (!entry.counts)
      throw UsageError("--counts applies to " + names_with(&WorkloadEntry::counts) + ", not to " + cell.workload +
                       (entry.simulates_caches ? " (its deterministic figures come from --cache-sim)" : ""));
    if (cell.threads > 1 && !entry.counts_threads)
      throw UsageError("--counts runs " + cell.workload + " at 1 thread only, got " + std::to_string(cell.threads) +
                       " threads (accepted at N threads: " + names_with(&WorkloadEntry::counts_threads) +
                       ", whose waits for other threads the counts leave out)");
    if (const std::string missing = cache_simulation_unavailable(); !missing.empty()) throw UsageError(missing);
  }
  if (cell.mode == CellMode::aged) {
    if (!entry.ages) throw UsageError("--age applies to " + names_with(&WorkloadEntry::ages) + " (workloads that draw sizes), not to " + cell.workload);
    try {
      parse_age_spec(cell.age);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (cell.mode == CellMode::soak) {
    if (!entry.soaks)
      throw UsageError("--soak applies to " + names_with(&WorkloadEntry::soaks) + " (workloads with a steady state, and replay, which loops its trace), not to " + cell.workload);
    try {
      parse_soak_spec(cell.soak);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (cell.mode != CellMode::profile) return;
  if (!entry.profiles)
    throw UsageError("--profile applies to " + names_with(&WorkloadEntry::profiles) + ", not to " + cell.workload +
                     " (accepted: --workload " + names_with(&WorkloadEntry::profiles) + ")");
  if (allocator.kind != AllocatorKind::drop_in)
    throw UsageError("--profile measures malloc libraries; '" + allocator.name + "' is an in-tree backend (accepted: drop-in allocators)");
  if (cell.profile.sample_every == 0) throw UsageError("--sample-every must be at least 1, got 0");
  const std::string& pass = cell.profile.pass;
  if (!pass.empty() && pass != "sample" && pass != "syscalls")
    throw UsageError("unknown profile pass '" + pass + "' (accepted: sample, syscalls)");
  if (const std::string missing = syscall_trace_unavailable(); !missing.empty()) throw UsageError(missing);
}

}  // namespace

void check_cell(const Cell& cell, const AllocatorSpec& allocator) {
  const WorkloadEntry* entry = find_workload(cell.workload);
  if (entry == nullptr) throw UsageError("unknown workload '" + cell.workload + "' (accepted: " + workload_names_text() + ")");
  if (cell.threads > 0) {
    try {
      entry->check(cell.params, cell.threads);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (const std::string why = refusal_reason(*entry, allocator, cell.params, cell.threads); !why.empty())
      throw UsageError("allocator '" + allocator.name + "' cannot run " + cell.workload + ": " + why);
  }
  check_mode(cell, *entry, allocator);
}

nlohmann::json run_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus) {
  // A counts cell runs the counted code path under callgrind and in its native kernel-events run
  // (marking its phase): one worker inline on the main thread, no perf counters, no sampling.
  set_counting_measured_phase(cell.mode == CellMode::counts && (running_under_valgrind() || marking_measured_phase()));
  // A soak cell's measured phase lasts its duration (cells/modes/soak.hpp); its record gains the soak block.
  set_measured_phase_soak(cell.mode == CellMode::soak ? std::optional<SoakSpec>(parse_soak_spec(cell.soak)) : std::nullopt);
  nlohmann::json rec = workload_entry(cell.workload).run(cell, allocator, topology, pus);
  if (cell.mode == CellMode::soak && rec.is_object()) rec["soak"] = soak_block(cell.soak, rec, soak_rounds_run());
  return rec;
}

}  // namespace allocstress
