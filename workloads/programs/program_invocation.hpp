// How a program definition (program_definition.hpp) is run once: the commands a cell measures,
// the one command `allocstress trace` captures, and why it cannot run here.  A pure function of
// the definition, the cell's parameters (seed, work, program threads) and the prepared inputs,
// except that bare program names are looked up on the machine (program_search_path()).
//
// The cell's parameters (cells/programs/program_cell.cpp) are {"program": DEFINITION, "work": PCT,
// "program_threads": N, "seed": S}; its inputs {"folder": DIR, "input": FILE} once prepared.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/programs/program_definition.hpp"

namespace allocstress {

struct ProgramInvocation {
  std::vector<std::string> argv;  // argv[0] absolute when the binary was found
  std::string working_directory;
  std::map<std::string, std::string> environment;
};

// The placeholder values of one run.  pre: params as above; `port` for a server's run.
PlaceholderValues placeholder_values(const nlohmann::json& params, const nlohmann::json& inputs, std::optional<unsigned> port);

// The measured command (a server: the server itself), its folder and environment, expanded.
ProgramInvocation program_invocation(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                                     std::optional<unsigned> port = std::nullopt);
// A server's load client, expanded (run without the preload).  pre: p.drive == server.
ProgramInvocation client_invocation(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs, unsigned port);
// The prepare command as `sh -c` argv, expanded; empty when the definition has none.
std::vector<std::string> prepare_invocation(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                                            std::optional<unsigned> port = std::nullopt);
// The port a server's run is ready on: the chosen `port` for "{port}", else the number given;
// nullopt when it is told ready by its output.
std::optional<unsigned> ready_port(const ProgramDefinition& p, std::optional<unsigned> port);
// Whether a run of `p` needs a chosen port ({port} anywhere).
bool needs_port(const ProgramDefinition& p);

// One command that runs the whole program once, for `allocstress trace -- argv`: the program
// itself, after its prepare command; a server is one bash driver that starts it, waits until it is
// up, runs the client and the prepare command with LD_PRELOAD removed (only the server is traced),
// stops the server and waits for it.
ProgramInvocation traced_invocation(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs);

// Why the program cannot run here ("not installed: redis-server from package redis-server
// (looked in /usr/bin:/bin:/usr/local/bin; ...)"), or "".
std::string program_unavailable(const ProgramDefinition& p);

// The work of one run in words ("80000 churn steps"), for a table's heading; "" when not said.
std::string program_work_text(const ProgramDefinition& p, const nlohmann::json& params);

}  // namespace allocstress
