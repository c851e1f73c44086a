// Cell <-> JSON and the cell's command line (see cell_encoding.hpp).
#include "plan/cell_encoding.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "plan/programs_file.hpp"
#include "plan/workload_params.hpp"
#include "platform/process/child_process.hpp"
#include "platform/errors.hpp"
#include "platform/json_numbers.hpp"
#include "platform/memory/thp_mode.hpp"
#include "cells/modes/soak.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {

namespace {

// The modes that carry a value of their own: its field in the cell JSON, its flag on `run`'s
// command line, and its parser (throws std::invalid_argument naming what is accepted).
struct ModeValue {
  CellMode mode;
  const char* field;
  const char* flag;
  std::string Cell::*member;
  const char* accepted;
  void (*check)(const std::string&);
};
const ModeValue kModeValues[] = {
    {CellMode::aged, "age", "--age", &Cell::age, "an ageing spec, as --age takes it", [](const std::string& t) { parse_age_spec(t); }},
    {CellMode::thp, "thp_mode", "--thp", &Cell::thp_mode, "never, madvise or always", [](const std::string& t) { parse_thp_mode(t); }},
    {CellMode::soak, "soak", "--soak", &Cell::soak, "a soak spec, as --soak takes it", [](const std::string& t) { parse_soak_spec(t); }},
};

}  // namespace

nlohmann::json to_json(const AllocatorSpec& s) {
  return {{"name", s.name},
          {"kind", s.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
          {"library", s.library},
          {"library_path", s.library_path},
          {"package", s.package},
          {"version", s.version},
          {"origin", s.origin},
          {"unavailable_reason", s.unavailable_reason},
          {"environment", s.environment},
          {"nonconforming", s.nonconforming}};
}

AllocatorSpec allocator_spec_from_json(const nlohmann::json& j) {
  try {
    AllocatorSpec s;
    s.name = j.at("name").get<std::string>();
    const std::string kind = j.at("kind").get<std::string>();
    if (kind != "in_tree" && kind != "drop_in") throw std::invalid_argument("\"kind\" is \"" + kind + "\" (accepted: in_tree or drop_in)");
    s.kind = kind == "in_tree" ? AllocatorKind::in_tree : AllocatorKind::drop_in;
    s.library = j.at("library").get<std::string>();
    s.library_path = j.at("library_path").get<std::string>();
    s.package = j.at("package").get<std::string>();
    s.version = j.at("version").get<std::string>();
    s.origin = j.at("origin").get<std::string>();
    s.unavailable_reason = j.at("unavailable_reason").get<std::string>();
    s.environment = j.value("environment", std::map<std::string, std::string>{});  // plans before configurations have none
    s.nonconforming = j.value("nonconforming", "");  // plans before the conformance check have none
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(e.what());
  }
}

nlohmann::json cell_to_json(const Cell& c) {
  nlohmann::json j = {{"allocator", c.allocator},
                      {"manifest", c.manifest},
                      {"workload", c.workload},
                      {"threads", c.threads},
                      {"placement", to_string(c.placement.policy)},
                      {"reserve_os_pu", c.placement.reserve_os_pu},
                      {"oversubscribe", c.placement.oversubscribe},
                      {"mode", to_string(c.mode)},
                      {"params", c.params}};
  if (!c.allocator_library.empty()) j["allocator_library"] = c.allocator_library;
  if (!c.inputs.empty()) j["inputs"] = c.inputs;
  if (c.resolved) j["resolved_allocator"] = to_json(*c.resolved);
  for (const ModeValue& v : kModeValues)
    if (c.mode == v.mode) j[v.field] = c.*v.member;
  if (c.mode == CellMode::profile)
    j["profile"] = {{"sample_every", c.profile.sample_every},
                    {"pass", c.profile.pass},
                    {"small_limit", c.profile.small_limit},
                    {"large_from", c.profile.large_from}};
  return j;
}

namespace {

template <class T>
T member(const nlohmann::json& j, const char* name, const std::string& where, const char* accepted, const T& fallback, bool required) {
  const auto it = j.find(name);
  if (it == j.end()) {
    if (required) throw UsageError(where + ": '" + name + "' is missing (accepted: " + accepted + ")");
    return fallback;
  }
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw UsageError(where + ": '" + name + "' is " + it->dump() + " (accepted: " + accepted + ")");
  }
}

// A count member: "<where>: \"name\" must be a whole number ≥ MIN, got -3" (platform/json_numbers.hpp).
std::uint64_t count_member(const nlohmann::json& j, const char* name, const std::string& where, std::uint64_t min, std::uint64_t max,
                           std::uint64_t fallback, bool required) {
  const auto it = j.find(name);
  if (it == j.end()) {
    if (required) throw UsageError(where + ": '" + name + "' is missing (accepted: a whole number ≥ " + std::to_string(min) + ")");
    return fallback;
  }
  try {
    return json_whole_number(*it, name, min, max);
  } catch (const std::invalid_argument& e) {
    throw UsageError(where + ": " + e.what());
  }
}

}  // namespace

Cell cell_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError(where + ": not a JSON object (accepted: a cell, as `allocstress matrix --plan-only` lists them)");
  Cell c;
  c.allocator = member<std::string>(j, "allocator", where, "a catalogue name", "", true);
  c.allocator_library = member<std::string>(j, "allocator_library", where, "a library path", "", false);
  c.manifest = member<std::string>(j, "manifest", where, "a manifest path", "", false);
  c.workload = member<std::string>(j, "workload", where, "a workload name", "", true);
  declare_programs_of({{"workload_params", {{c.workload, member<nlohmann::json>(j, "params", where, "the workload's parameters", nlohmann::json::object(), false)}}}});
  if (find_workload(c.workload) == nullptr)
    throw UsageError(where + ": unknown workload '" + c.workload + "' (accepted: " + workload_names_text() + ")");
  // 0 threads: a workload with prepared inputs (replay, fitted) takes their count, as `run` encodes it.
  const unsigned min_threads = find_workload(c.workload)->prepare != nullptr ? 0 : 1;
  c.threads = unsigned(count_member(j, "threads", where, min_threads, std::numeric_limits<unsigned>::max(), 1, true));
  try {
    c.placement.policy = parse_placement(member<std::string>(j, "placement", where, "a placement name", "compact", false));
    c.mode = parse_cell_mode(member<std::string>(j, "mode", where, "timing, simulate, profile, counts, limited, aged, thp or soak", "timing", false));
    for (const ModeValue& v : kModeValues) {
      std::string& value = c.*v.member;
      value = member<std::string>(j, v.field, where, v.accepted, "", c.mode == v.mode);
      if (c.mode == v.mode) v.check(value);
      else if (!value.empty())
        throw UsageError(where + ": '" + v.field + "' is set but the mode is " + std::string(to_string(c.mode)) + " (accepted: '" + v.field +
                         "' with mode " + std::string(to_string(v.mode)) + " only)");
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(where + ": " + e.what());
  }
  c.placement.reserve_os_pu = member<bool>(j, "reserve_os_pu", where, "true or false", false, false);
  c.placement.oversubscribe = member<bool>(j, "oversubscribe", where, "true or false", false, false);
  c.params = member<nlohmann::json>(j, "params", where, "the workload's parameters", nlohmann::json::object(), true);
  if (!c.params.is_object()) throw UsageError(where + ": 'params' is " + c.params.dump() + " (accepted: a JSON object)");
  c.inputs = member<nlohmann::json>(j, "inputs", where, "a JSON object", nlohmann::json::object(), false);
  if (!c.inputs.is_object()) throw UsageError(where + ": 'inputs' is " + c.inputs.dump() + " (accepted: a JSON object)");
  if (const auto r = j.find("resolved_allocator"); r != j.end()) try {
      c.resolved = allocator_spec_from_json(*r);
    } catch (const std::invalid_argument& e) {
      throw UsageError(where + ": 'resolved_allocator' is not an allocator as a plan resolves it (" + e.what() +
                       "; accepted: the member as `allocstress matrix --plan-only` writes it, or none, to look the allocator up in the manifest)");
    }
  if (const auto p = j.find("profile"); p != j.end()) {
    const std::string at = where + ": profile";
    if (!p->is_object()) throw UsageError(at + ": not a JSON object (accepted: {\"sample_every\": N, \"pass\": ..., \"small_limit\": BYTES, \"large_from\": BYTES})");
    c.profile.sample_every = count_member(*p, "sample_every", at, 1, std::numeric_limits<std::uint64_t>::max(), 64, false);
    c.profile.pass = member<std::string>(*p, "pass", at, "\"\", sample or syscalls", "", false);
    c.profile.small_limit = count_member(*p, "small_limit", at, 0, std::numeric_limits<std::uint64_t>::max(), 1024, false);
    c.profile.large_from = count_member(*p, "large_from", at, 0, std::numeric_limits<std::uint64_t>::max(), 0, false);
  }
  return c;
}

CellJson read_cell_json(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path);
    if (!in) throw UsageError("cell file " + path + ": cannot open it");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  CellJson out{nlohmann::json::parse(text, nullptr, false), path == "-" ? "cell on standard input" : "cell file " + path};
  if (out.json.is_discarded())
    throw UsageError(out.where + ": not JSON (accepted: one cell object, as `allocstress matrix --plan-only` lists them)");
  return out;
}

Cell read_cell_file(const std::string& path) {
  const CellJson c = read_cell_json(path);
  return cell_from_json(c.json, c.where);
}

namespace {

// The `bench` command that measures a program defined on bench's command line once under the cell's allocator.
std::vector<std::string> bench_command(const std::string& executable, const Cell& c, const ProgramDefinition& p) {
  std::vector<std::string> argv = {executable, "bench", "--allocators", c.allocator_library.empty() ? c.allocator : c.allocator + "=" + c.allocator_library,
                                   "--reps", "1", "--warmup", "0", "--name", p.name, "--cwd", unescape_braces(p.working_directory)};
  if (!p.prepare.empty()) argv.insert(argv.end(), {"--prepare", unescape_braces(p.prepare)});
  for (const auto& [k, v] : p.environment) argv.insert(argv.end(), {"--env", k + "=" + unescape_braces(v)});
  for (const ProgramMetric& m : p.metrics) argv.insert(argv.end(), {"--metric", m.name + "=" + m.regex + (m.higher_is_better ? ",higher" : ",lower")});
  if (p.timeout_s > 0) {
    char t[32];
    std::snprintf(t, sizeof t, "%g", p.timeout_s);
    argv.insert(argv.end(), {"--timeout", t});
  }
  if (c.mode == CellMode::counts) argv.push_back("--counts");
  if (!c.manifest.empty()) argv.insert(argv.end(), {"--manifest", c.manifest});
  if (p.drive == ProgramDrive::server) {
    std::vector<std::string> words;
    for (const std::string& w : p.command) words.push_back(unescape_braces(w));
    argv.insert(argv.end(), {"--server", shell_command_line(words), "--client", p.client.size() == 3 ? unescape_braces(p.client[2]) : "", "--stop", p.stop});
    if (!p.ready_port.empty()) argv.insert(argv.end(), {"--ready-port", p.ready_port});
    if (!p.ready_regex.empty()) argv.insert(argv.end(), {"--ready-regex", p.ready_regex});
    return argv;
  }
  argv.push_back("--");
  for (const std::string& w : p.command) argv.push_back(unescape_braces(w));
  return argv;
}

}  // namespace

std::vector<std::string> cell_command(const std::string& executable, const Cell& c) {
  if (is_program_workload(c.workload) && c.params.contains("program")) {
    const ProgramDefinition p = program_definition_from_json(c.params.at("program"));
    if (p.origin == "allocstress bench") return bench_command(executable, c, p);
  }
  std::vector<std::string> argv = {executable, "run", "--allocator",
                                   c.allocator_library.empty() ? c.allocator : c.allocator + "=" + c.allocator_library,
                                   "--workload", c.workload, "--threads", std::to_string(c.threads)};
  for (auto& a : option_arguments(workload_entry(c.workload), c.params)) argv.push_back(std::move(a));
  argv.insert(argv.end(), {"--placement", std::string(to_string(c.placement.policy))});
  if (c.placement.reserve_os_pu) argv.push_back("--reserve-os-pu");
  if (c.placement.oversubscribe) argv.push_back("--oversubscribe");
  if (c.mode == CellMode::simulate) argv.push_back("--cache-sim");
  if (c.mode == CellMode::counts) {
    argv.push_back("--counts");
    // the params are already capped: a cap equal to them keeps them as they are
    const std::string_view prefix = workload_entry(c.workload).counts_prefix;
    if (!prefix.empty() && c.params.contains(std::string(prefix)))
      argv.insert(argv.end(), {"--counts-iterations", c.params.at(std::string(prefix)).dump()});
  }
  if (c.mode == CellMode::profile) argv.insert(argv.end(), {"--profile", "--sample-every", std::to_string(c.profile.sample_every)});
  for (const ModeValue& v : kModeValues)
    if (c.mode == v.mode) argv.insert(argv.end(), {v.flag, c.*v.member});
  if (!c.manifest.empty()) argv.insert(argv.end(), {"--manifest", c.manifest});
  if (is_program_workload(c.workload) && c.params.contains("program")) {  // a program of a user's programs file
    const std::string origin = c.params.at("program").value("origin", "");
    const std::string file = origin.rfind("programs file ", 0) == 0 ? origin.substr(14) : "";
    if (!file.empty() && file != std::filesystem::absolute(shipped_programs_path()).string()) argv.insert(argv.end(), {"--programs-file", file});
  }
  return argv;
}

}  // namespace allocstress
