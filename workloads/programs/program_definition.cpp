// A program definition: its checks, its JSON form, placeholders and metrics (see program_definition.hpp).
#include "workloads/programs/program_definition.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>

#include "platform/process/program_run.hpp"
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

const std::vector<std::string> kCombines = {"first", "last", "mean", "harmonic-mean", "sum", "min", "max"};

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

bool valid_metric_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && name[0] >= 'a' && name[0] <= 'z' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The placeholders of `text`, in order ("work:100", "input", ...); throws on an unclosed brace.
std::vector<std::string> placeholders_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      ++i;
      continue;
    }
    if (text[i] != '{') continue;
    if (i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    const std::size_t end = text.find('}', i);
    if (end == std::string_view::npos)
      throw std::invalid_argument("'" + std::string(text) + "' opens a placeholder it does not close (write {{ for a literal brace)");
    out.emplace_back(text.substr(i + 1, end - i - 1));
    i = end;
  }
  return out;
}

// N or N/D of {work:N} / {work:N/D}; throws when it is not that.
std::pair<std::uint64_t, std::uint64_t> work_arguments(const std::string& spec) {
  const std::string body = spec.substr(5);
  const std::size_t slash = body.find('/');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 15 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw std::invalid_argument("{" + spec + "} is not {work:N} or {work:N/D} with whole numbers N >= 1 and D >= 1");
    const std::uint64_t v = std::stoull(s);
    if (v == 0) throw std::invalid_argument("{" + spec + "} is not {work:N} or {work:N/D} with whole numbers N >= 1 and D >= 1");
    return v;
  };
  return {number(body.substr(0, slash)), slash == std::string::npos ? 1 : number(body.substr(slash + 1))};
}

constexpr const char* kAcceptedPlaceholders =
    "{input}, {dir}, {threads}, {seed}, {seed31}, {work:N}, {work:N/D}, {port} (server drive), {bin:NAME}, {{, }}";

// Throws when a placeholder of `text` is unknown, or {port} / {input} where there is none.
void check_placeholders(std::string_view text, const ProgramDefinition& p, const std::string& where) {
  for (const std::string& ph : placeholders_of(text)) {
    if (ph.rfind("work:", 0) == 0) {
      work_arguments(ph);
      continue;
    }
    if (ph.rfind("bin:", 0) == 0) {
      if (ph.size() == 4 || ph.find('/') != std::string::npos)
        throw std::invalid_argument(where + "{" + ph + "} names no program (accepted: {bin:NAME}, NAME a bare program name)");
      continue;
    }
    if (ph == "port" && p.drive != ProgramDrive::server)
      throw std::invalid_argument(where + "{port} is given to a server only (drive = \"server\"), found in '" + std::string(text) + "'");
    if (ph == "input" && p.input_generator.empty() && p.input_file.empty())
      throw std::invalid_argument(where + "{input} is used but the program has no input (give input.generator or input.file)");
    if (ph != "input" && ph != "dir" && ph != "threads" && ph != "seed" && ph != "seed31" && ph != "port")
      throw std::invalid_argument(where + "unknown placeholder {" + ph + "} in '" + std::string(text) + "' (accepted: " +
                                  kAcceptedPlaceholders + ")");
  }
}

template <class T>
T member(const Json& j, const char* name, const T& fallback) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    throw std::invalid_argument(std::string("program definition: '") + name + "' is " + it->dump() + " (wrong type)");
  }
}

}  // namespace

const std::vector<std::string>& builtin_program_metric_names() {
  static const std::vector<std::string> names = {"wall_s", "user_s", "sys_s", "peak_rss_mib", "tree_peak_rss_mib", "minor_faults",
                                                 "major_faults", "context_switches", "processes"};
  return names;
}

std::optional<int> signal_number(std::string_view name) {
  const std::string_view bare = name.rfind("SIG", 0) == 0 ? name.substr(3) : name;
  for (int s = 1; s < 32; ++s)
    if (const char* abbrev = sigabbrev_np(s); abbrev != nullptr && bare == abbrev) return s;
  return std::nullopt;
}

std::string program_search_path() {
  const char* given = std::getenv("ALLOCSTRESS_PROGRAM_PATH");
  return given != nullptr && *given != '\0' ? given : "/usr/bin:/bin:/usr/local/bin";
}

std::string program_binary(const std::string& binary) {
  if (binary.find('/') != std::string::npos) return access(binary.c_str(), X_OK) == 0 ? binary : std::string();
  return find_executable(binary, program_search_path());
}

std::vector<std::string> bin_placeholders(std::string_view text) {
  std::vector<std::string> out;
  try {
    for (const std::string& ph : placeholders_of(text))
      if (ph.rfind("bin:", 0) == 0) out.push_back(ph.substr(4));
  } catch (const std::invalid_argument&) {
  }
  return out;
}

std::string escape_braces(std::string_view text, bool keep_port) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (keep_port && text.substr(i, 6) == "{port}") {
      out += "{port}";
      i += 5;
    } else if (text[i] == '{' || text[i] == '}') {
      out += std::string(2, text[i]);
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string unescape_braces(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if ((text[i] == '{' || text[i] == '}') && i + 1 < text.size() && text[i + 1] == text[i]) ++i;
  }
  return out;
}

bool uses_placeholder(std::string_view text, std::string_view name) {
  try {
    for (const std::string& ph : placeholders_of(text))
      if (ph == name || (name == "work" && ph.rfind("work:", 0) == 0)) return true;
  } catch (const std::invalid_argument&) {
  }
  return false;
}

void check_program_definition(const ProgramDefinition& p, const std::string& where_) {
  const std::string where = where_.empty() ? "" : where_ + ": ";
  if (!valid_name(p.name))
    throw std::invalid_argument(where + "name '" + p.name + "' is not 1..64 of letters, digits, '-', '_', '.'");
  if (p.command.empty() || p.command.front().empty()) throw std::invalid_argument(where + "the command is empty (accepted: the program and its arguments)");
  if (!p.input_generator.empty() && find_input_generator(p.input_generator) == nullptr)
    throw std::invalid_argument(where + "unknown input generator '" + p.input_generator + "' (accepted: " + input_generator_names() + ")");
  if (p.input_generator.empty() && !p.input_file.empty() && p.input_file.front() != '/')
    throw std::invalid_argument(where + "the input file '" + p.input_file + "' must be an absolute path");
  if (!p.input_generator.empty() && (p.input_file.empty() || p.input_file.find('/') != std::string::npos))
    throw std::invalid_argument(where + "a generated input's file name '" + p.input_file + "' must be a plain file name");
  std::vector<std::string> texts = p.command;
  texts.insert(texts.end(), p.client.begin(), p.client.end());
  texts.push_back(p.prepare);
  texts.push_back(p.work_text);
  texts.push_back(p.working_directory);
  texts.push_back(p.ready_port);
  for (const auto& [name, value] : p.environment) {
    if (name.empty() || name.find('=') != std::string::npos) throw std::invalid_argument(where + "environment variable '" + name + "' is not a variable name");
    if (name == "LD_PRELOAD") throw std::invalid_argument(where + "LD_PRELOAD is the allocator's: a program cannot set it (add an allocator with --add-allocator)");
    texts.push_back(value);
  }
  for (const std::string& t : texts) check_placeholders(t, p, where);
  for (const std::string& n : p.needs)
    if (n.empty() || n.front() == '=') throw std::invalid_argument(where + "needs entry '" + n + "' is not BINARY or BINARY=PACKAGE");
  if (p.threads < 1 || p.threads > 64) throw std::invalid_argument(where + "threads must be 1..64, got " + std::to_string(p.threads));
  if (!(p.expected_s >= 0) || !(p.timeout_s >= 0) || p.timeout_s > 1e6)
    throw std::invalid_argument(where + "expected_s and timeout_s must be seconds >= 0 (timeout at most 1000000)");
  if (p.drive == ProgramDrive::server) {
    if (p.client.empty()) throw std::invalid_argument(where + "a server needs a client: the command that sends it a bounded load (--client CMD)");
    if (p.ready_port.empty() && p.ready_regex.empty())
      throw std::invalid_argument(where + "a server needs a way to tell it is up: a ready port (--ready-port P) or a ready regex (--ready-regex R)");
    if (!p.ready_port.empty() && p.ready_port != "{port}") {
      const bool digits = std::all_of(p.ready_port.begin(), p.ready_port.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || p.ready_port.size() > 5 || std::stoul(p.ready_port) < 1 || std::stoul(p.ready_port) > 65535)
        throw std::invalid_argument(where + "ready port '" + p.ready_port + "' is not 1..65535 or {port}");
    }
    if (p.stop.rfind("send:", 0) == 0) {
      if (p.ready_port.empty()) throw std::invalid_argument(where + "stop = \"send:...\" writes to the ready port: give one");
    } else if (!signal_number(p.stop)) {
      throw std::invalid_argument(where + "stop '" + p.stop + "' is not a signal name (SIGTERM, SIGINT, ...) or send:TEXT");
    }
    if (!p.ready_regex.empty()) try {
        std::regex(p.ready_regex, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw std::invalid_argument(where + "ready regex '" + p.ready_regex + "' is not a regular expression: " + e.what());
      }
  } else if (!p.client.empty() || !p.ready_port.empty() || !p.ready_regex.empty()) {
    throw std::invalid_argument(where + "a client, ready port or ready regex belongs to a server (drive = \"server\", --server CMD)");
  }
  std::vector<std::string> seen;
  for (const ProgramMetric& m : p.metrics) {
    if (!valid_metric_name(m.name))
      throw std::invalid_argument(where + "metric name '" + m.name + "' is not a lower-case identifier ([a-z][a-z0-9_]*, at most 64)");
    const auto& builtin = builtin_program_metric_names();
    if (std::find(builtin.begin(), builtin.end(), m.name) != builtin.end())
      throw std::invalid_argument(where + "metric name '" + m.name + "' is a figure every program record has (" + joined(builtin) + "): choose another");
    if (std::find(seen.begin(), seen.end(), m.name) != seen.end()) throw std::invalid_argument(where + "metric '" + m.name + "' is given twice");
    seen.push_back(m.name);
    try {
      std::regex(m.regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument(where + "metric '" + m.name + "': '" + m.regex + "' is not a regular expression: " + e.what());
    }
    if (m.regex.empty()) throw std::invalid_argument(where + "metric '" + m.name + "' has an empty regex");
    if (std::find(kCombines.begin(), kCombines.end(), m.combine) == kCombines.end())
      throw std::invalid_argument(where + "metric '" + m.name + "': combine '" + m.combine + "' (accepted: " + joined(kCombines) + ")");
    if (m.stream != "stdout" && m.stream != "stderr")
      throw std::invalid_argument(where + "metric '" + m.name + "': stream '" + m.stream + "' (accepted: stdout, stderr)");
  }
}

Json to_json(const ProgramDefinition& p) {
  Json metrics = Json::array();
  for (const ProgramMetric& m : p.metrics)
    metrics.push_back({{"name", m.name}, {"regex", m.regex}, {"better", m.higher_is_better ? "higher" : "lower"},
                       {"combine", m.combine}, {"unit", m.unit}, {"stream", m.stream}});
  return {{"name", p.name},
          {"summary", p.summary},
          {"behaviour", p.behaviour},
          {"package", p.package},
          {"command", p.command},
          {"needs", p.needs},
          {"input", {{"generator", p.input_generator}, {"file", p.input_file}}},
          {"prepare", p.prepare},
          {"working_directory", p.working_directory},
          {"environment", p.environment},
          {"drive", p.drive == ProgramDrive::server ? "server" : "run"},
          {"client", p.client},
          {"ready_port", p.ready_port},
          {"ready_regex", p.ready_regex},
          {"stop", p.stop},
          {"metrics", metrics},
          {"threads", p.threads},
          {"takes_threads", p.takes_threads},
          {"expected_s", p.expected_s},
          {"check_output", p.check_output},
          {"timeout_s", p.timeout_s},
          {"work_text", p.work_text},
          {"origin", p.origin}};
}

ProgramDefinition program_definition_from_json(const Json& j) {
  if (!j.is_object()) throw std::invalid_argument("program definition: not a JSON object");
  ProgramDefinition p;
  p.name = member<std::string>(j, "name", "");
  p.summary = member<std::string>(j, "summary", "");
  p.behaviour = member<std::string>(j, "behaviour", "");
  p.package = member<std::string>(j, "package", "");
  p.command = member<std::vector<std::string>>(j, "command", {});
  p.needs = member<std::vector<std::string>>(j, "needs", {});
  const Json input = member<Json>(j, "input", Json::object());
  p.input_generator = member<std::string>(input, "generator", "");
  p.input_file = member<std::string>(input, "file", "");
  p.prepare = member<std::string>(j, "prepare", "");
  p.working_directory = member<std::string>(j, "working_directory", "");
  p.environment = member<std::map<std::string, std::string>>(j, "environment", {});
  const std::string drive = member<std::string>(j, "drive", "run");
  if (drive != "run" && drive != "server") throw std::invalid_argument("program definition: drive '" + drive + "' (accepted: run, server)");
  p.drive = drive == "server" ? ProgramDrive::server : ProgramDrive::run;
  p.client = member<std::vector<std::string>>(j, "client", {});
  p.ready_port = member<std::string>(j, "ready_port", "");
  p.ready_regex = member<std::string>(j, "ready_regex", "");
  p.stop = member<std::string>(j, "stop", "SIGTERM");
  for (const Json& m : member<Json>(j, "metrics", Json::array())) {
    ProgramMetric metric;
    metric.name = member<std::string>(m, "name", "");
    metric.regex = member<std::string>(m, "regex", "");
    const std::string better = member<std::string>(m, "better", "higher");
    if (better != "higher" && better != "lower")
      throw std::invalid_argument("program definition: metric '" + metric.name + "': better '" + better + "' (accepted: higher, lower)");
    metric.higher_is_better = better == "higher";
    metric.combine = member<std::string>(m, "combine", "last");
    metric.unit = member<std::string>(m, "unit", "");
    metric.stream = member<std::string>(m, "stream", "stdout");
    p.metrics.push_back(std::move(metric));
  }
  p.threads = member<unsigned>(j, "threads", 1);
  p.takes_threads = member<bool>(j, "takes_threads", false);
  p.expected_s = member<double>(j, "expected_s", 0);
  p.check_output = member<bool>(j, "check_output", false);
  p.timeout_s = member<double>(j, "timeout_s", 0);
  p.work_text = member<std::string>(j, "work_text", "");
  p.origin = member<std::string>(j, "origin", "");
  return p;
}

std::string expand_placeholders(std::string_view text, const PlaceholderValues& v) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    const std::size_t end = text.find('}', i);
    if (end == std::string_view::npos) throw std::invalid_argument("'" + std::string(text) + "' opens a placeholder it does not close");
    const std::string ph(text.substr(i + 1, end - i - 1));
    if (ph == "input") out += v.input;
    else if (ph == "dir") out += v.dir;
    else if (ph == "threads") out += std::to_string(v.threads);
    else if (ph == "seed") out += std::to_string(v.seed);
    else if (ph == "seed31") out += std::to_string(v.seed % 2147483647 + 1);
    else if (ph == "port") {
      if (!v.port) throw std::invalid_argument("{port} has no value here: only a server's run chooses one");
      out += std::to_string(*v.port);
    } else if (ph.rfind("bin:", 0) == 0) {
      const std::string path = program_binary(ph.substr(4));
      out += path.empty() ? ph.substr(4) : path;
    } else if (ph.rfind("work:", 0) == 0) {
      const auto [n, d] = work_arguments(ph);
      out += std::to_string(scaled_work(n, v.work_percent) / d);
    } else {
      throw std::invalid_argument("unknown placeholder {" + ph + "} (accepted: " + kAcceptedPlaceholders + ")");
    }
    i = end;
  }
  return out;
}

std::optional<double> read_program_metric(const ProgramMetric& metric, const std::string& output) {
  std::regex re;
  try {
    re = std::regex(metric.regex, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
  std::vector<double> values;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), re); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::string text = m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(value)) continue;
    values.push_back(value);
    if (m.length(0) == 0) break;  // an empty match would not advance
  }
  if (values.empty()) return std::nullopt;
  const std::string& how = metric.combine;
  if (how == "first") return values.front();
  if (how == "last") return values.back();
  if (how == "min") return *std::min_element(values.begin(), values.end());
  if (how == "max") return *std::max_element(values.begin(), values.end());
  double sum = 0, inverse = 0;
  for (double x : values) sum += x, inverse += x != 0 ? 1 / x : INFINITY;
  if (how == "sum") return sum;
  if (how == "mean") return sum / double(values.size());
  if (how == "harmonic-mean") return std::isfinite(inverse) && inverse > 0 ? std::optional<double>(double(values.size()) / inverse) : std::nullopt;
  return std::nullopt;
}

}  // namespace allocstress
