// One run of a program as its definition drives it (see program_runs.hpp): the prepare command,
// then the program from start to exit, or a server from start to stop around its client's load.
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <thread>

#include "cells/programs/program_runs.hpp"
#include "platform/process/child_process.hpp"

extern char** environ;

namespace allocstress {

namespace {

constexpr double kServerStartLimitS = 60;  // a server that is not up by then has failed
constexpr double kServerStopLimitS = 30;   // ... nor stopped this long after its stop
constexpr const char* kOuterTmpdir = "ALLOCSTRESS_OUTER_TMPDIR";

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Every ALLOCSTRESS_* variable removed and TMPDIR as the matrix found it.
EnvironmentChanges user_environment() {
  EnvironmentChanges env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind("ALLOCSTRESS_", 0) == 0) env[entry.substr(0, entry.find('='))] = std::nullopt;
  }
  if (const char* outer = std::getenv(kOuterTmpdir)) env["TMPDIR"] = *outer == '\0' ? std::nullopt : std::optional<std::string>(outer);
  return env;
}

// Whether the server is up: its port accepts connections, or its output matches the regex.
bool wait_until_ready(const ProgramDefinition& p, std::optional<unsigned> port, RunningProgram& server, double limit_s) {
  if (const std::optional<unsigned> ready = ready_port(p, port)) return wait_for_loopback_port(*ready, limit_s, &server);
  const std::regex ready(p.ready_regex, std::regex::ECMAScript);
  const double until = now_s() + limit_s;
  while (now_s() < until) {
    if (std::regex_search(server.output_so_far(), ready) || std::regex_search(server.errors_so_far(), ready)) return true;
    if (!server.still_running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// The stop's text with its \r \n \t escapes, or "" for a signal.
std::string stop_text(const std::string& stop) {
  if (stop.rfind("send:", 0) != 0) return "";
  std::string out;
  for (std::size_t i = 5; i < stop.size(); ++i) {
    if (stop[i] == '\\' && i + 1 < stop.size()) {
      const char c = stop[++i];
      out += c == 'r' ? '\r' : c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += stop[i];
    }
  }
  return out;
}

void run_server(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs, const ProgramInvocation& how,
                const EnvironmentChanges& env, std::optional<unsigned> port, double timeout_s, ProgramRunResult& r) {
  const ProgramInvocation client = client_invocation(p, params, inputs, port.value_or(0));
  r.client_command = shell_command_line(client.argv);
  RunningProgram server({how.argv, how.working_directory, env});
  const double start_limit = timeout_s > 0 ? std::min(timeout_s, kServerStartLimitS) : kServerStartLimitS;
  if (!wait_until_ready(p, port, server, start_limit)) {
    const bool ended = !server.still_running();
    r.program = server.finish(1);
    r.failure = ended ? "the server ended before it was up: " + r.program.failure()
                      : "the server was not up within " + std::to_string(int(start_limit)) + " s (" +
                            (p.ready_regex.empty() ? "127.0.0.1:" + std::to_string(ready_port(p, port).value_or(0)) + " accepted no connection"
                                                   : "its output never matched '" + p.ready_regex + "'") + ")";
    return;
  }
  EnvironmentChanges client_env = unpreloaded_environment();
  for (const auto& [k, v] : client.environment) client_env[k] = v;
  r.client = run_program({client.argv, client.working_directory, client_env}, timeout_s);
  const bool alive = server.still_running();  // a server that crashed under the load is the failure, not its client
  if (const std::string text = stop_text(p.stop); alive && !text.empty())
    send_to_loopback_port(ready_port(p, port).value_or(0), text);
  else if (alive)
    server.send_signal(*signal_number(p.stop));
  r.program = server.finish(kServerStopLimitS);
  r.program.wall_s = r.client->wall_s;
  if (!alive) {
    std::string server_end = r.program.failure();  // "the program was killed by signal 11 ..." -> "was killed by signal 11 ..."
    if (const std::string prefix = "the program "; server_end.rfind(prefix, 0) == 0) server_end.erase(0, prefix.size());
    r.failure = "the server ended during the load: " + server_end +
                (r.client->succeeded() ? "" : " (and the client failed: " + r.client->failure() + ")");
  } else if (!r.client->succeeded()) {
    r.failure = "the client failed: " + r.client->failure();
  } else if (r.program.end == ChildOutcome::End::timed_out) {
    r.failure = "the server did not stop within " + std::to_string(int(kServerStopLimitS)) + " s of its stop (" + p.stop + ") and was killed";
  } else {
    const bool stopped_by_signal = r.program.end == ChildOutcome::End::signaled && stop_text(p.stop).empty() &&
                                   signal_number(p.stop) == std::optional<int>(r.program.signal);
    if (!r.program.succeeded() && !stopped_by_signal) r.failure = "the server " + r.program.failure().substr(std::string("the program ").size());
  }
}

}  // namespace

EnvironmentChanges unpreloaded_environment() {
  EnvironmentChanges env = user_environment();
  env["LD_PRELOAD"] = std::nullopt;
  return env;
}

EnvironmentChanges program_environment(const ProgramInvocation& how, const std::string& extra_preload) {
  EnvironmentChanges env = user_environment();
  for (const auto& [k, v] : how.environment) env[k] = v;
  const char* inherited = std::getenv("LD_PRELOAD");
  std::string preload = extra_preload;
  if (inherited != nullptr && *inherited != '\0') preload += (preload.empty() ? "" : ":") + std::string(inherited);
  env["LD_PRELOAD"] = preload.empty() ? std::nullopt : std::optional<std::string>(preload);
  return env;
}

ProgramRunResult run_program_once(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                                  const EnvironmentChanges& extra, double timeout_s) {
  ProgramRunResult r;
  const std::optional<unsigned> port = needs_port(p) ? std::optional<unsigned>(free_loopback_port()) : std::nullopt;
  const ProgramInvocation how = program_invocation(p, params, inputs, port);
  r.command = shell_command_line(how.argv);
  r.working_directory = how.working_directory;
  r.measured = p.drive == ProgramDrive::server
                   ? "the server from start to stop (rusage); wall_s: the client's load alone; the client runs without the preload"
                   : "the program from fork to exit, with every descendant it waited for (wait4 rusage)";
  if (const std::vector<std::string> prepare = prepare_invocation(p, params, inputs, port); !prepare.empty()) {
    const ProgramOutcome done = run_program({prepare, how.working_directory, unpreloaded_environment()}, timeout_s);
    if (!done.succeeded()) {
      r.program = done;
      r.failure = "the prepare command failed: " + done.failure();
      return r;
    }
  }
  const std::string front = extra.count("LD_PRELOAD") && extra.at("LD_PRELOAD") ? *extra.at("LD_PRELOAD") : std::string();
  EnvironmentChanges env = program_environment(how, front);
  for (const auto& [k, v] : extra)
    if (k != "LD_PRELOAD") env[k] = v;
  if (p.drive == ProgramDrive::server) {
    run_server(p, params, inputs, how, env, port, timeout_s, r);
  } else {
    r.program = run_program({how.argv, how.working_directory, env}, timeout_s);
    if (!r.program.succeeded()) r.failure = r.program.failure();
    if (r.program.end == ChildOutcome::End::timed_out) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", timeout_s);
      r.failure = std::string("the program exceeded its timeout of ") + limit + " s and was killed with its descendants";
    }
  }
  return r;
}

}  // namespace allocstress
