// The commands of a program definition (see program_invocation.hpp).
#include "workloads/programs/program_invocation.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "platform/process/child_process.hpp"
#include "platform/process/program_run.hpp"
#include "workloads/programs/generated_text.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

std::string folder(const Json& inputs) { return inputs.is_object() ? inputs.value("folder", std::string()) : std::string(); }

// The binary, or the name as given when it is missing (program_unavailable says so first).
std::string resolved(const std::string& name) {
  const std::string path = program_binary(name);
  return path.empty() ? name : path;
}

std::vector<std::string> expanded(const std::vector<std::string>& argv, const PlaceholderValues& v, bool resolve_first) {
  std::vector<std::string> out;
  for (const std::string& a : argv) out.push_back(expand_placeholders(a, v));
  if (resolve_first && !out.empty()) out.front() = resolved(out.front());
  return out;
}

ProgramInvocation invocation_of(const ProgramDefinition& p, const std::vector<std::string>& argv, const PlaceholderValues& v) {
  ProgramInvocation how;
  how.argv = expanded(argv, v, true);
  how.working_directory = p.working_directory.empty() ? v.dir : expand_placeholders(p.working_directory, v);
  for (const auto& [name, value] : p.environment) how.environment[name] = expand_placeholders(value, v);
  return how;
}

// "binary" or "binary=package" of a needs entry.
std::pair<std::string, std::string> binary_and_package(const std::string& entry) {
  const std::size_t eq = entry.find('=');
  return {entry.substr(0, eq), eq == std::string::npos ? std::string() : entry.substr(eq + 1)};
}

}  // namespace

PlaceholderValues placeholder_values(const Json& params, const Json& inputs, std::optional<unsigned> port) {
  PlaceholderValues v;
  v.dir = folder(inputs);
  v.input = inputs.is_object() ? inputs.value("input", std::string()) : std::string();
  v.threads = params.value("program_threads", 1u);
  v.seed = params.value("seed", std::uint64_t{1});
  v.work_percent = params.value("work", 100u);
  v.port = port;
  return v;
}

bool needs_port(const ProgramDefinition& p) {
  if (p.ready_port == "{port}") return true;
  for (const auto& list : {p.command, p.client})
    for (const std::string& a : list)
      if (uses_placeholder(a, "port")) return true;
  return uses_placeholder(p.prepare, "port");
}

std::optional<unsigned> ready_port(const ProgramDefinition& p, std::optional<unsigned> port) {
  if (p.ready_port.empty()) return std::nullopt;
  if (p.ready_port == "{port}") return port;
  return unsigned(std::stoul(p.ready_port));
}

ProgramInvocation program_invocation(const ProgramDefinition& p, const Json& params, const Json& inputs, std::optional<unsigned> port) {
  return invocation_of(p, p.command, placeholder_values(params, inputs, port));
}

ProgramInvocation client_invocation(const ProgramDefinition& p, const Json& params, const Json& inputs, unsigned port) {
  if (p.drive != ProgramDrive::server) throw std::invalid_argument(p.name + " is not a server: it has no client");
  return invocation_of(p, p.client, placeholder_values(params, inputs, port));
}

std::vector<std::string> prepare_invocation(const ProgramDefinition& p, const Json& params, const Json& inputs, std::optional<unsigned> port) {
  if (p.prepare.empty()) return {};
  return {"/bin/sh", "-c", expand_placeholders(p.prepare, placeholder_values(params, inputs, port))};
}

ProgramInvocation traced_invocation(const ProgramDefinition& p, const Json& params, const Json& inputs) {
  const std::optional<unsigned> port = needs_port(p) ? std::optional<unsigned>(free_loopback_port()) : std::nullopt;
  ProgramInvocation how = program_invocation(p, params, inputs, port);
  const std::vector<std::string> prepare = prepare_invocation(p, params, inputs, port);
  const std::string unpreloaded = "env -u LD_PRELOAD ";
  if (p.drive == ProgramDrive::run) {
    if (prepare.empty()) return how;
    how.argv = {"/bin/bash", "-c", unpreloaded + shell_command_line(prepare) + " || exit 125; exec " + shell_command_line(how.argv)};
    return how;
  }
  const ProgramInvocation client = client_invocation(p, params, inputs, port.value_or(0));
  const std::optional<unsigned> ready = ready_port(p, port);
  std::string script = prepare.empty() ? "" : unpreloaded + shell_command_line(prepare) + " || exit 125; ";
  const std::string log = (how.working_directory.empty() ? std::string("/tmp") : how.working_directory) + "/allocstress-server.log";
  script += shell_command_line(how.argv) + " >" + shell_command_line({log}) + " 2>&1 & server=$!; i=0; until ";
  if (ready)
    script += "(exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(*ready) + ") 2>/dev/null";
  else
    script += unpreloaded + "grep -qE " + shell_command_line({p.ready_regex}) + " " + shell_command_line({log});
  script += "; do i=$((i+1)); [ $i -gt 1500 ] && { kill -KILL $server; exit 1; }; kill -0 $server 2>/dev/null || exit 1; sleep 0.02; done; " +
            unpreloaded + shell_command_line(client.argv) + "; status=$?; ";
  if (p.stop.rfind("send:", 0) == 0)
    script += "printf '%b' " + shell_command_line({p.stop.substr(5)}) + " 2>/dev/null >/dev/tcp/127.0.0.1/" + std::to_string(ready.value_or(0)) + "; ";
  else
    script += "kill -" + std::string(p.stop.rfind("SIG", 0) == 0 ? p.stop.substr(3) : p.stop) + " $server; ";
  script += "wait $server; exit $status";
  how.argv = {"/bin/bash", "-c", script};
  return how;
}

std::string program_unavailable(const ProgramDefinition& p) {
  std::vector<std::pair<std::string, std::string>> needed = {{p.command.empty() ? std::string() : p.command.front(), p.package}};
  if (p.drive == ProgramDrive::server && !p.client.empty()) needed.emplace_back(p.client.front(), "");
  for (const std::string& n : p.needs) needed.push_back(binary_and_package(n));
  for (const std::string& a : p.command)
    for (const std::string& bin : bin_placeholders(a)) needed.emplace_back(bin, "");
  for (const auto& [bin, package] : needed) {
    if (bin.empty() || uses_placeholder(bin, "input") || uses_placeholder(bin, "dir")) continue;  // made by the run itself
    if (!program_binary(bin).empty()) continue;
    if (bin.find('/') != std::string::npos) return "not found: " + bin + " (no executable file there)";
    return "not installed: " + bin + (package.empty() ? std::string() : " from package " + package) + " (looked in " + program_search_path() +
           (package.empty() ? ")" : "; scripts/setup-deps.sh installs it)");
  }
  if (p.input_generator.empty() && !p.input_file.empty() && access(p.input_file.c_str(), R_OK) != 0)
    return "its input file " + p.input_file + " cannot be read";
  return "";
}

std::string program_work_text(const ProgramDefinition& p, const Json& params) {
  if (p.work_text.empty()) return "";
  return expand_placeholders(p.work_text, placeholder_values(params, Json::object(), std::nullopt));
}

}  // namespace allocstress
