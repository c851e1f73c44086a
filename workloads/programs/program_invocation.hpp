// How a prog-* workload's program is run: the command a cell measures (and `allocstress trace`
// or `allocstress programs` capture), and why it cannot run here.  A pure function of the
// parameters and the prepared inputs, except that binaries are looked up on the machine
// (program_table.hpp: program_search_path()).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

struct ProgramInvocation {
  std::vector<std::string> argv;
  std::string working_directory;
  std::map<std::string, std::string> environment;
};

// pre: workload is a prog-* name, params its (checked) params, inputs what its prepare() returned.
// How to run the program once (the same command the cell runs), for `allocstress trace -- argv`.
// A server program (prog-redis) is one `sh -c` driver that starts the server, runs the client
// with LD_PRELOAD removed (only the server is traced or measured), and shuts the server down.
ProgramInvocation program_invocation(std::string_view workload, const nlohmann::json& params, const nlohmann::json& inputs);
// Why the program cannot run here ("not installed: redis-server from package redis-server
// (looked in /usr/bin:/bin:/usr/local/bin)"), or "".
std::string program_unavailable(std::string_view workload, const nlohmann::json& params);

// A server program's two halves, as its cell runs them: the server (measured, under the
// allocator) on 127.0.0.1:port and the client (LD_PRELOAD removed) that sends the bounded load.
// pre: the workload's drive is ProgramDrive::server.
struct ServerInvocation {
  ProgramInvocation server, client;
  unsigned port = 0;
  std::string shutdown_command;  // sent to the port once the client is done
};
ServerInvocation server_invocation(std::string_view workload, const nlohmann::json& params, const nlohmann::json& inputs, unsigned port);

// The work a run does, in words ("300000 churn steps"), for a table's heading.
std::string program_work_text(std::string_view workload, const nlohmann::json& params);

}  // namespace allocstress
