// Program workloads are named by their definitions (a programs file's entries, `allocstress bench`),
// not by the registry: every such name resolves to the registry's one `program` entry
// (cells/programs/program_cell.cpp), whose cells carry the whole definition in `params.program`.  A name
// is declared by whoever brings the definition into this process -- reading a programs file or a
// plan, decoding a cell, reading results -- and find_workload (workload_registry.hpp) then
// resolves it.  Declaring only names: what ran is always read from the parameters.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// pre: `name` is not a registry entry's (the definition's checks refuse it first).  Idempotent.
void declare_program_workload(const std::string& name);
bool is_declared_program(std::string_view name);
// Every declared name, in the order of declaration.
std::vector<std::string> declared_program_names();
// Back to none declared, as in a fresh process (the fuzz targets, tests/fuzz/: each input alone).
void forget_declared_programs();

// Declares the program workloads a results document, journal or plan carries: every
// `workload_params` (context.plan or a plan's JSON) and every record whose parameters hold a
// `program` definition.  Anything else is left alone.
void declare_programs_of(const nlohmann::json& document);

}  // namespace allocstress
