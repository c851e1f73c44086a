// The commands of the prog-* workloads (see program_invocation.hpp).
#include "workloads/programs/program_invocation.hpp"

#include <stdexcept>

#include "platform/child_process.hpp"
#include "platform/program_run.hpp"
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_table.hpp"

namespace allocstress {

namespace {

const ProgramDefinition& definition(std::string_view workload) {
  const ProgramDefinition* p = find_program(workload);
  if (p == nullptr) throw std::invalid_argument("'" + std::string(workload) + "' is not a program workload");
  return *p;
}

unsigned work(const nlohmann::json& params) { return params.at("work").get<unsigned>(); }
unsigned program_threads(const nlohmann::json& params) { return params.at("program_threads").get<unsigned>(); }

std::string input_path(const ProgramDefinition& p, const nlohmann::json& inputs) {
  if (p.input_file.empty()) return "";
  if (!inputs.is_object() || !inputs.contains("input"))
    throw std::invalid_argument(std::string(p.workload) + ": the cell's inputs name no generated input (prepared before the cell runs)");
  return inputs.at("input").get<std::string>();
}

std::string folder(const nlohmann::json& inputs) {
  return inputs.is_object() && inputs.contains("folder") ? inputs.at("folder").get<std::string>() : std::string();
}

// The binary, or its bare name when it is missing (program_unavailable says so first).
std::string binary(std::string_view name) {
  const std::string path = program_binary(name);
  return path.empty() ? std::string(name) : path;
}

// redis-benchmark's bounded load: the same requests in every run.
std::vector<std::string> redis_client(const nlohmann::json& params, unsigned port) {
  return {binary("redis-benchmark"), "-h", "127.0.0.1", "-p", std::to_string(port), "-n", std::to_string(scaled_work(3000, work(params))),
          "-c", "16", "-r", "100000", "-d", "96", "-t", "set,get,lpush,lpop,sadd,hset,spop", "--csv"};
}

std::vector<std::string> redis_server(const nlohmann::json& inputs, unsigned port) {
  return {binary("redis-server"), "--port", std::to_string(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
          "--protected-mode", "no", "--dir", folder(inputs).empty() ? "/tmp" : folder(inputs), "--loglevel", "warning"};
}

}  // namespace

std::string program_work_text(std::string_view workload, const nlohmann::json& params) {
  const ProgramDefinition& p = definition(workload);
  const unsigned w = work(params);
  const std::string name(p.workload);
  if (name == "prog-python3") return std::to_string(scaled_work(60000, w)) + " churn steps";
  if (name == "prog-cc1") return std::to_string(scaled_work(40, w)) + " generated functions";
  if (name == "prog-sqlite3") return std::to_string(scaled_work(60000, w)) + " inserted rows, " + std::to_string(scaled_work(120000, w)) + " orders";
  if (name == "prog-lua") return std::to_string(scaled_work(80000, w)) + " churn steps";
  if (name == "prog-ghostscript") return std::to_string(scaled_work(12, w)) + " pages at 100 dpi";
  if (name == "prog-redis") return "7 tests x " + std::to_string(scaled_work(3000, w)) + " requests, 16 clients";
  if (name == "prog-xz") return std::to_string(scaled_work(4u << 20, w) >> 10) + " KiB, -3, " + std::to_string(program_threads(params)) + " threads";
  if (name == "prog-rocksdb")
    return std::to_string(scaled_work(100000, w)) + " random writes then reads, " + std::to_string(program_threads(params)) + " thread(s)";
  return std::to_string(w) + "% of the default work";
}

ProgramInvocation program_invocation(std::string_view workload, const nlohmann::json& params, const nlohmann::json& inputs) {
  const ProgramDefinition& p = definition(workload);
  const std::string name(p.workload), input = input_path(p, inputs), dir = folder(inputs);
  ProgramInvocation how{{}, dir, {}};
  if (name == "prog-python3") how.argv = {binary("python3"), input};
  else if (name == "prog-cc1") how.argv = {binary("gcc"), "-O2", "-c", input, "-o", "/dev/null"};
  else if (name == "prog-sqlite3") how.argv = {binary("sqlite3"), "-batch", ":memory:", ".read " + input};
  else if (name == "prog-lua") how.argv = {binary("lua5.4"), input};
  else if (name == "prog-ghostscript")
    how.argv = {binary("gs"), "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ppmraw", "-r100", "-sOutputFile=/dev/null", input};
  else if (name == "prog-xz")  // through sh only to send the output to /dev/null: exec leaves xz alone in the process
    how.argv = {"/bin/sh", "-c", "exec \"$0\" -T" + std::to_string(program_threads(params)) + " -3 --block-size=512KiB -c \"$1\" > /dev/null",
                binary("xz"), input};
  else if (name == "prog-rocksdb")
    how.argv = {binary("db_bench"), "--benchmarks=fillrandom,readrandom", "--num=" + std::to_string(scaled_work(100000, work(params))),
                "--value_size=100", "--compression_type=none", "--disable_wal=1", "--threads=" + std::to_string(program_threads(params)),
                "--seed=" + std::to_string(params.at("seed").get<std::uint64_t>() % 2147483647 + 1), "--db=" + dir + "/rocksdb-db",
                "--histogram=0", "--statistics=0"};
  else if (name == "prog-redis") {
    const unsigned port = free_loopback_port();
    const ServerInvocation s = server_invocation(workload, params, inputs, port);
    // sh: start the server, wait for it, run the client and redis-cli without the preload, shut it down.
    std::string script = shell_command_line(s.server.argv) + " & server=$!; i=0; while ! env -u LD_PRELOAD " +
                         shell_command_line({binary("redis-cli"), "-p", std::to_string(port), "ping"}) +
                         " >/dev/null 2>&1; do i=$((i+1)); [ $i -gt 400 ] && exit 1; sleep 0.02; done; env -u LD_PRELOAD " +
                         shell_command_line(s.client.argv) + "; status=$?; env -u LD_PRELOAD " +
                         shell_command_line({binary("redis-cli"), "-p", std::to_string(port), "shutdown", "nosave"}) +
                         " >/dev/null 2>&1; wait $server; exit $status";
    how.argv = {"/bin/sh", "-c", script};
  } else {
    throw std::invalid_argument("no invocation for " + name);
  }
  return how;
}

ServerInvocation server_invocation(std::string_view workload, const nlohmann::json& params, const nlohmann::json& inputs, unsigned port) {
  const ProgramDefinition& p = definition(workload);
  if (p.drive != ProgramDrive::server) throw std::invalid_argument(std::string(workload) + " is not a server program");
  ServerInvocation s;
  s.port = port;
  s.server = {redis_server(inputs, port), folder(inputs), {}};
  s.client = {redis_client(params, port), folder(inputs), {}};
  s.shutdown_command = "SHUTDOWN NOSAVE\r\n";
  return s;
}

std::string program_unavailable(std::string_view workload, const nlohmann::json&) {
  const ProgramDefinition* p = find_program(workload);
  if (p == nullptr) return "'" + std::string(workload) + "' is not a program workload";
  std::vector<std::pair<std::string_view, std::string_view>> needed = {{p->executable, p->package}};
  for (std::string_view also : p->also_needs) {
    const std::size_t eq = also.find('=');
    needed.emplace_back(also.substr(0, eq), also.substr(eq + 1));
  }
  for (const auto& [bin, package] : needed)
    if (program_binary(bin).empty())
      return "not installed: " + std::string(bin) + " from package " + std::string(package) + " (looked in " + program_search_path() +
             "; scripts/setup-deps.sh installs it)";
  return "";
}

}  // namespace allocstress
