// A programs file read with toml++ (see programs_file.hpp).
#include "plan/programs_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "platform/process/child_process.hpp"
#include "platform/errors.hpp"
#include "platform/process/shell_words.hpp"
#include "workloads/programs/program_inputs.hpp"

#ifndef ALLOCSTRESS_PROGRAMS_DEFAULT
#define ALLOCSTRESS_PROGRAMS_DEFAULT "workloads/programs/programs.toml"
#endif

namespace allocstress {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kProgramKeys = {
    "name", "command", "summary", "behaviour", "package", "needs", "input", "prepare", "cwd", "env", "drive", "client", "ready_port",
    "ready_regex", "stop", "metric", "threads", "takes_threads", "work", "expected_s", "check_output", "timeout_s"};
const std::vector<std::string> kMetricKeys = {"name", "regex", "better", "combine", "unit", "stream"};
const std::vector<std::string> kInputKeys = {"generator", "file"};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// Errors name the file and the line of the node they are about.
struct Reader {
  fs::path path;
  [[noreturn]] void fail(const toml::node& at, const std::string& what) const { fail_line(at.source().begin.line, what); }
  [[noreturn]] void fail_line(std::uint32_t line, const std::string& what) const {
    throw UsageError("programs file " + path.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  }

  std::string text(const toml::node& n, const std::string& key) const {
    if (const auto v = n.value<std::string>()) return *v;
    fail(n, key + " must be a string");
  }
  std::vector<std::string> texts(const toml::node& n, const std::string& key) const {
    const toml::array* a = n.as_array();
    if (a == nullptr) fail(n, key + " must be an array of strings");
    std::vector<std::string> out;
    for (const toml::node& item : *a) out.push_back(text(item, key + "'s items"));
    return out;
  }
  // A command: an array of words, or one string split like a shell would (no expansion).
  std::vector<std::string> words(const toml::node& n, const std::string& key) const {
    if (n.is_array()) return texts(n, key);
    try {
      return split_shell_words(text(n, key));
    } catch (const std::invalid_argument& e) {
      fail(n, key + ": " + e.what());
    }
  }
  double number(const toml::node& n, const std::string& key) const {
    if (const auto v = n.value<double>(); v && (n.is_integer() || n.is_floating_point())) return *v;
    fail(n, key + " must be a number");
  }
  unsigned whole(const toml::node& n, const std::string& key, std::int64_t low, std::int64_t high) const {
    const auto v = n.is_integer() ? n.value<std::int64_t>() : std::nullopt;
    if (!v || *v < low || *v > high) fail(n, key + " must be a whole number in " + std::to_string(low) + ".." + std::to_string(high));
    return unsigned(*v);
  }
  bool flag(const toml::node& n, const std::string& key) const {
    if (const auto v = n.value<bool>(); v && n.is_boolean()) return *v;
    fail(n, key + " must be true or false");
  }
  const toml::table& table(const toml::node& n, const std::string& key) const {
    const toml::table* t = n.as_table();
    if (t == nullptr) fail(n, key + " must be a table");
    return *t;
  }
  void only_keys(const toml::table& t, const std::vector<std::string>& accepted, const std::string& what) const {
    for (auto&& [key, value] : t)
      if (std::find(accepted.begin(), accepted.end(), std::string(key.str())) == accepted.end())
        fail(value, "unknown key '" + std::string(key.str()) + "' in " + what + " (accepted: " + joined(accepted) + ")");
  }
  // A path of the file's own: relative ones are taken from the file's folder.
  std::string local_path(const std::string& p) const { return p.empty() || p.front() == '/' ? p : (path.parent_path() / p).lexically_normal().string(); }

  ProgramMetric metric(const toml::node& n) const {
    const toml::table& t = table(n, "a [[program.metric]]");
    only_keys(t, kMetricKeys, "[[program.metric]]");
    ProgramMetric m;
    if (!t.contains("name") || !t.contains("regex")) fail(n, "a [[program.metric]] needs name and regex");
    m.name = text(*t.get("name"), "metric name");
    m.regex = text(*t.get("regex"), "metric regex");
    if (const toml::node* b = t.get("better")) {
      const std::string better = text(*b, "better");
      if (better != "higher" && better != "lower") fail(*b, "better must be \"higher\" or \"lower\", got \"" + better + "\"");
      m.higher_is_better = better == "higher";
    }
    if (const toml::node* c = t.get("combine")) m.combine = text(*c, "combine");
    if (const toml::node* u = t.get("unit")) m.unit = text(*u, "unit");
    if (const toml::node* s = t.get("stream")) m.stream = text(*s, "stream");
    return m;
  }

  ProgramDefinition program(const toml::table& t) const {
    only_keys(t, kProgramKeys, "[[program]]");
    ProgramDefinition p;
    p.origin = "programs file " + path.string();
    const toml::node* name = t.get("name");
    if (name == nullptr) fail(t, "a [[program]] has no name (accepted: 1..64 of letters, digits, '-', '_', '.')");
    p.name = text(*name, "name");
    const toml::node* command = t.get("command");
    if (command == nullptr) fail(t, p.name + ": no command (accepted: an array of words, or one string)");
    p.command = words(*command, "command");
    if (!p.command.empty() && p.command.front().find('/') != std::string::npos && p.command.front().find('{') == std::string::npos)
      p.command.front() = local_path(p.command.front());
    for (auto&& [key_, value] : t) {
      const std::string key(key_.str());
      if (key == "summary") p.summary = text(value, key);
      else if (key == "behaviour") p.behaviour = text(value, key);
      else if (key == "package") p.package = text(value, key);
      else if (key == "needs") p.needs = texts(value, key);
      else if (key == "prepare") p.prepare = text(value, key);
      else if (key == "cwd") p.working_directory = local_path(text(value, key));
      else if (key == "drive") {
        const std::string d = text(value, key);
        if (d != "run" && d != "server") fail(value, "drive must be \"run\" or \"server\", got \"" + d + "\"");
        p.drive = d == "server" ? ProgramDrive::server : ProgramDrive::run;
      } else if (key == "client") p.client = value.is_array() ? texts(value, key) : std::vector<std::string>{"/bin/sh", "-c", text(value, key)};
      else if (key == "ready_port") p.ready_port = value.is_integer() ? std::to_string(whole(value, key, 1, 65535)) : text(value, key);
      else if (key == "ready_regex") p.ready_regex = text(value, key);
      else if (key == "stop") p.stop = text(value, key);
      else if (key == "threads") p.threads = whole(value, key, 1, 64);
      else if (key == "takes_threads") p.takes_threads = flag(value, key);
      else if (key == "work") p.work_text = text(value, key);
      else if (key == "expected_s") p.expected_s = number(value, key);
      else if (key == "timeout_s") p.timeout_s = number(value, key);
      else if (key == "check_output") p.check_output = flag(value, key);
      else if (key == "env") {
        for (auto&& [var, v] : table(value, key)) p.environment[std::string(var.str())] = text(v, "env." + std::string(var.str()));
      } else if (key == "input") {
        const toml::table& in = table(value, key);
        only_keys(in, kInputKeys, "input");
        if (const toml::node* g = in.get("generator")) p.input_generator = text(*g, "input.generator");
        if (const toml::node* f = in.get("file")) p.input_file = text(*f, "input.file");
        if (p.input_generator.empty()) p.input_file = local_path(p.input_file);
        else if (p.input_file.empty())
          if (const InputGenerator* gen = find_input_generator(p.input_generator)) p.input_file = std::string(gen->file_name);
      } else if (key == "metric") {
        const toml::array* list = value.as_array();
        if (list == nullptr) fail(value, "metric must be [[program.metric]] tables");
        for (const toml::node& m : *list) p.metrics.push_back(metric(m));
      }
    }
    try {
      check_program_definition(p, p.name);
    } catch (const std::invalid_argument& e) {
      fail(t, e.what());
    }
    if (registry_workload(p.name) != nullptr)
      fail(*name, "name '" + p.name + "' is a built-in workload's (" + workload_names_text() + "): choose another");
    return p;
  }
};

}  // namespace

const ProgramDefinition* ProgramsFile::find(const std::string& name) const {
  for (const ProgramDefinition& p : programs)
    if (p.name == name) return &p;
  return nullptr;
}

std::string ProgramsFile::names() const {
  std::vector<std::string> out;
  for (const ProgramDefinition& p : programs) out.push_back(p.name);
  return joined(out);
}

ProgramsFile read_programs_file(const fs::path& given) {
  std::error_code ec;
  const fs::path path = fs::absolute(given, ec);
  Reader reader{path};
  if (!fs::is_regular_file(path, ec)) reader.fail_line(0, "no such file (accepted: a TOML file of [[program]] tables)");
  toml::table doc;
  try {
    doc = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    reader.fail_line(e.source().begin.line, "not TOML: " + std::string(e.description()));
  }
  for (auto&& [key, value] : doc)
    if (key.str() != "program") reader.fail(value, "unknown key '" + std::string(key.str()) + "' (accepted: [[program]] tables)");
  const toml::array* list = doc["program"].as_array();
  if (list == nullptr || list->empty()) reader.fail_line(0, "no [[program]] table (accepted: one [[program]] per program)");
  ProgramsFile file{path, {}};
  std::set<std::string> names;
  for (const toml::node& n : *list) {
    const toml::table* t = n.as_table();
    if (t == nullptr) reader.fail(n, "program must be [[program]] tables");
    ProgramDefinition p = reader.program(*t);
    if (!names.insert(p.name).second) reader.fail(*t, "program '" + p.name + "' is defined twice");
    file.programs.push_back(std::move(p));
  }
  for (const ProgramDefinition& p : file.programs) declare_program_workload(p.name);
  return file;
}

fs::path shipped_programs_path() {
  const char* given = std::getenv("ALLOCSTRESS_PROGRAMS_FILE");
  if (given != nullptr && *given != '\0') return given;
  std::error_code ec;
  if (fs::exists(ALLOCSTRESS_PROGRAMS_DEFAULT, ec)) return ALLOCSTRESS_PROGRAMS_DEFAULT;
  // An installed allocstress away from its source tree: <prefix>/bin/allocstress, <prefix>/share/allocstress/.
  const fs::path installed = beside_this_executable("../share/allocstress/programs.toml").lexically_normal();
  return fs::exists(installed, ec) ? installed : fs::path(ALLOCSTRESS_PROGRAMS_DEFAULT);
}

const ProgramsFile& shipped_programs() {
  static std::mutex m;
  static std::optional<ProgramsFile> file;
  std::lock_guard<std::mutex> lock(m);
  if (!file) file = read_programs_file(shipped_programs_path());
  return *file;
}

const ProgramDefinition* find_program_definition(const std::string& name, const std::vector<ProgramDefinition>& given) {
  for (const ProgramDefinition& p : given)
    if (p.name == name) return &p;
  return shipped_programs().find(name);
}

std::string declare_shipped_programs() {
  try {
    shipped_programs();
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

}  // namespace allocstress
