// The checks every cell passes before it runs (see cell_check.hpp).
#include "plan/cell_check.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "platform/errors.hpp"

namespace allocstress {

namespace {

// A JSON value as a message shows it: strings without their quotes.
std::string shown(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// An `allocstress run` argv after "EXE run": each option with its value ("" for a flag alone).
struct RunArguments {
  std::vector<std::string> order;
  std::map<std::string, std::string> values;
};

RunArguments run_arguments(const std::vector<std::string>& argv) {
  RunArguments out;
  for (std::size_t i = 2; i < argv.size(); ++i) {
    const std::string& flag = argv[i];
    const bool has_value = i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0;
    if (!out.values.count(flag)) out.order.push_back(flag);
    out.values[flag] = has_value ? argv[++i] : "";
  }
  return out;
}

// The mode the flags of `run` ask for (a limited cell runs as a timing one by hand).
std::string mode_of(const RunArguments& a) {
  for (const auto& [flag, mode] : {std::pair{"--cache-sim", "simulate"}, {"--counts", "counts"}, {"--profile", "profile"},
                                   {"--age", "aged"}, {"--thp", "thp"}, {"--soak", "soak"}})
    if (a.values.count(flag)) return mode;
  return "timing";
}

// How `run`'s flags map to a cell's fields: the field `flag` sets and its option, if it is one.
struct FlagField {
  std::string name;
  const WorkloadOption* option = nullptr;
  bool alone = false;  // a flag without a value: present = true
};

FlagField field_of(const std::string& flag, const WorkloadEntry& entry) {
  static const std::map<std::string, std::string> plain = {
      {"--allocator", "allocator"},        {"--workload", "workload"}, {"--threads", "threads"},
      {"--placement", "placement"},        {"--age", "age"},           {"--thp", "thp_mode"},
      {"--soak", "soak"},                  {"--sample-every", "profile.sample_every"},
      {"--manifest", "manifest"},          {"--programs-file", "program"}};
  if (const auto it = plain.find(flag); it != plain.end()) return {it->second};
  if (flag == "--reserve-os-pu" || flag == "--oversubscribe") return {flag == "--reserve-os-pu" ? "reserve_os_pu" : "oversubscribe", nullptr, true};
  if (flag == "--counts-iterations") return {std::string(entry.counts_prefix)};
  for (const WorkloadOption* o : entry.options)
    if (o->flag == flag) return {std::string(o->key), o, o->kind == OptionKind::flag};
  return {};
}

// What a value of the command means for the field: the parameter's JSON where it parses.
std::string command_value(const FlagField& f, const std::string& text) {
  if (f.option == nullptr) return text;
  try {
    return shown(option_value(*f.option, text));
  } catch (const std::exception&) {
    return text;
  }
}

// Throws UsageError naming the first field `command` (a plan file's "command") contradicts.
void check_command(const nlohmann::json& command, const Cell& cell) {
  const std::string accepted = " (accepted: the cell as an `allocstress run` command, a list of strings, as `matrix --plan-only` writes it)";
  if (!command.is_array() || command.size() < 2) throw UsageError("'command' is " + command.dump() + accepted);
  std::vector<std::string> listed;
  for (const auto& word : command) {
    if (!word.is_string()) throw UsageError("'command' is " + command.dump() + accepted);
    listed.push_back(word.get<std::string>());
  }
  std::vector<std::string> expected;
  try {
    expected = cell_command(listed[0], cell);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {  // parameters no check has read (a plan file read where it does not run)
    throw UsageError(std::string("its parameters cannot be written as flags: ") + e.what());
  }
  if (listed == expected) return;
  if (expected[1] != "run" || listed[1] != "run") {  // a program of `bench`: its command is bench's, compared word by word
    std::size_t i = 1;
    while (i < listed.size() && i < expected.size() && listed[i] == expected[i]) ++i;
    throw UsageError("the cell's command is not the cell as flags: its word " + std::to_string(i) + " is '" + (i < listed.size() ? listed[i] : "") +
                     "' where the cell gives '" + (i < expected.size() ? expected[i] : "") + "'");
  }
  const RunArguments want = run_arguments(expected), have = run_arguments(listed);
  const WorkloadEntry& entry = workload_entry(cell.workload);
  auto differs = [&](const std::string& flag) {
    const FlagField f = field_of(flag, entry);
    const auto w = want.values.find(flag), h = have.values.find(flag);
    if (f.alone) {
      if ((w == want.values.end()) != (h == have.values.end()))
        throw UsageError("\"" + f.name + "\" is " + (w != want.values.end() ? "true" : "false") + " but the cell's command says " +
                         (h != have.values.end() ? "true" : "false"));
      return;
    }
    if (w != want.values.end() && h != have.values.end() && w->second == h->second) return;
    const std::string is = w == want.values.end() ? " is not set" : " is " + (f.option != nullptr ? shown(cell.params.at(std::string(f.option->key))) : w->second);
    throw UsageError("\"" + f.name + "\"" + is + " but the cell's command " +
                     (h == have.values.end() ? "has no " + flag : "says " + command_value(f, h->second)));
  };
  // The allocator, workload and threads first, then the mode, then every option in the cell's order.
  for (const char* flag : {"--allocator", "--workload", "--threads"}) differs(flag);
  if (mode_of(want) != mode_of(have)) throw UsageError("\"mode\" is " + mode_of(want) + " but the cell's command says " + mode_of(have));
  for (const std::string& flag : want.order)
    if (flag != "--cache-sim" && flag != "--counts" && flag != "--profile") differs(flag);
  for (const std::string& flag : have.order)
    if (!want.values.count(flag)) {
      if (field_of(flag, entry).name.empty()) throw UsageError("the cell's command has " + flag + ", which is none of the cell's fields");
      differs(flag);
    }
}

}  // namespace

std::string cell_difference(const Cell& a, const Cell& b, const std::string& b_source) {
  const nlohmann::json ja = cell_to_json(a), jb = cell_to_json(b);
  auto find = [](const nlohmann::json& o, const std::string& key) -> const nlohmann::json* {
    const auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  };
  auto differ = [&](const std::string& name, const nlohmann::json* x, const nlohmann::json* y) -> std::string {
    if (x != nullptr && y != nullptr ? *x == *y : x == y) return "";
    return "\"" + name + "\" " + (x != nullptr ? "is " + shown(*x) : std::string("is not set")) + " but " + b_source + " " +
           (y != nullptr ? "makes it " + shown(*y) : std::string("does not set it"));
  };
  std::vector<std::string> names = {"allocator", "allocator_library", "workload", "threads", "mode", "age", "thp_mode", "soak", "params"};
  for (const nlohmann::json* j : {&ja, &jb})
    for (const auto& [key, value] : j->items())
      if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
  for (const std::string& name : names) {
    if (name != "params") {
      if (std::string d = differ(name, find(ja, name), find(jb, name)); !d.empty()) return d;
      continue;
    }
    std::vector<std::string> keys;  // the parameters by their own names
    for (const nlohmann::json* j : {&jb.at("params"), &ja.at("params")})
      for (const auto& [key, value] : j->items())
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    for (const std::string& key : keys)
      if (std::string d = differ(key, find(ja.at("params"), key), find(jb.at("params"), key)); !d.empty()) return d;
  }
  return "";
}

std::string cell_label(const nlohmann::json& j) {
  auto text = [&](const char* name) {
    const auto it = j.is_object() ? j.find(name) : j.end();
    return it != j.end() && (it->is_string() || it->is_number()) ? shown(*it) : std::string("?");
  };
  const std::string threads = text("threads");
  return text("allocator") + " x " + text("workload") + " x " + threads + (threads == "1" ? " thread" : " threads");
}

CheckedCell CellChecker::check(const nlohmann::json& j, const std::string& where) {
  Cell cell = cell_from_json(j, where);
  const auto command = j.find("command");
  try {
    return check_built(std::move(cell), command != j.end() ? &*command : nullptr);
  } catch (const UsageError& e) {
    throw UsageError(where + ": " + e.what());
  }
}

CheckedCell CellChecker::check(Cell cell) { return check_built(std::move(cell), nullptr); }

CheckedCell CellChecker::check_built(Cell cell, const nlohmann::json* command) {
  if (!run_here_) {
    if (command != nullptr) check_command(*command, cell);
    return {std::move(cell), AllocatorSpec{}};
  }
  AllocatorSpec spec = resolve(cell);
  check_cell(cell, spec);
  if (command != nullptr) check_command(*command, cell);
  return {std::move(cell), std::move(spec)};
}

AllocatorSpec CellChecker::resolve(const Cell& cell) {
  if (cell.resolved && cell.resolved->name == cell.allocator) {  // a matrix's cell: resolved once, by its planner
    check_resolved(*cell.resolved);
    return *cell.resolved;
  }
  const std::string added = cell.allocator_library.empty() ? "" : cell.allocator + "=" + cell.allocator_library;
  const auto key = std::make_pair(cell.manifest, added);
  auto it = catalogs_.find(key);
  if (it == catalogs_.end())
    it = catalogs_.emplace(key, load_catalog(cell.manifest, added.empty() ? std::vector<std::string>{} : std::vector{added})).first;
  const AllocatorSpec& spec = it->second.find_or_suggest(cell.allocator);
  if (!spec.available()) throw UsageError("allocator '" + spec.name + "' is not installed: " + spec.unavailable_reason);
  return spec;
}

}  // namespace allocstress
