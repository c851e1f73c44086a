// The `program` registry entry (cells/programs/program_cell.cpp) with the shipped programs' definitions:
// prepare writes the generated input, the invocation runs standalone (a server as its traced bash
// driver), refusals (in-tree, void, static binaries, missing programs) and thread rules.
#include <gtest/gtest.h>

#include <filesystem>

#include "cells/workload_registry.hpp"
#include "plan/presets.hpp"
#include "plan/programs_file.hpp"
#include "plan/workload_params.hpp"
#include "platform/process/child_process.hpp"
#include "platform/process/program_run.hpp"
#include "workloads/programs/program_invocation.hpp"

#ifndef ALLOCSTRESS_STATIC_PROGRAM
#define ALLOCSTRESS_STATIC_PROGRAM ""
#endif

namespace allocstress {
namespace {

// The shipped programs are workloads once their file is read (the CLI does it at start).
nlohmann::json params_of(const std::string& workload, unsigned work) {
  declare_shipped_programs();
  nlohmann::json p = workload_params(workload, find_preset("quick").params, {}, {});
  p["work"] = work;
  return p;
}

ProgramDefinition definition(const std::string& workload) { return *shipped_programs().find(workload); }

// Prepares the workload's inputs into a fresh folder and runs its (traced) invocation once.
ProgramOutcome run_once(const std::string& workload, unsigned work) {
  const nlohmann::json params = params_of(workload, work);
  const std::filesystem::path folder = make_temporary_folder("allocstress-prog-test-");
  const nlohmann::json inputs = workload_entry(workload).prepare(params, folder);
  const ProgramInvocation how = traced_invocation(definition(workload), params, inputs);
  const ProgramOutcome o = run_program({how.argv, how.working_directory, {}}, 120);
  std::filesystem::remove_all(folder);
  return o;
}

TEST(ProgramCell, ProgramNamesResolveToTheProgramEntry) {
  ASSERT_EQ(declare_shipped_programs(), "");
  EXPECT_EQ(&workload_entry("prog-lua"), registry_workload("program"));
  EXPECT_TRUE(is_program_workload("prog-sqlite3"));
  EXPECT_FALSE(is_program_workload("alloc-test"));
  EXPECT_EQ(params_of("prog-lua", 100).at("program").at("name"), "prog-lua");
  EXPECT_EQ(params_of("prog-xz", 100).at("program_threads"), 2);
}

TEST(ProgramCell, PrepareWritesTheGeneratedInputOnce) {
  const nlohmann::json params = params_of("prog-lua", 5);
  const std::filesystem::path folder = make_temporary_folder("allocstress-prog-test-");
  const nlohmann::json a = workload_entry("prog-lua").prepare(params, folder), b = workload_entry("prog-lua").prepare(params, folder);
  EXPECT_EQ(a, b);
  ASSERT_TRUE(a.contains("input"));
  EXPECT_TRUE(std::filesystem::exists(a.at("input").get<std::string>()));
  EXPECT_EQ(a.at("folder").get<std::string>(), std::filesystem::absolute(folder).string());
  std::filesystem::remove_all(folder);
}

TEST(ProgramCell, LuaInvocationRunsStandalone) {
  if (const std::string why = program_unavailable(definition("prog-lua")); !why.empty()) GTEST_SKIP() << why;
  const ProgramOutcome o = run_once("prog-lua", 5);
  ASSERT_TRUE(o.succeeded()) << o.failure();
  EXPECT_NE(o.out.find("prog-lua\t4000\tsteps"), std::string::npos) << o.out;
}

TEST(ProgramCell, RedisTracedInvocationIsADriverThatEnds) {
  if (const std::string why = program_unavailable(definition("prog-redis")); !why.empty()) GTEST_SKIP() << why;
  const ProgramOutcome o = run_once("prog-redis", 5);
  ASSERT_TRUE(o.succeeded()) << o.failure() << o.err;
  EXPECT_NE(o.out.find("\"SET\""), std::string::npos) << o.out;
}

TEST(ProgramCell, InTreeVoidAndStaticBinariesAreRefused) {
  declare_shipped_programs();
  const WorkloadEntry& e = workload_entry("prog-sqlite3");
  AllocatorSpec pool;
  pool.name = "pool";
  pool.kind = AllocatorKind::in_tree;
  EXPECT_EQ(refusal_reason(e, pool, params_of("prog-sqlite3", 100), 1), "a real program can only run under a drop-in allocator (LD_PRELOAD)");
  AllocatorSpec none;
  none.name = "void";
  none.kind = AllocatorKind::in_tree;
  EXPECT_FALSE(refusal_reason(e, none, params_of("prog-sqlite3", 100), 1).empty());
  EXPECT_FALSE(e.void_baseline);
  const std::string static_program = ALLOCSTRESS_STATIC_PROGRAM;
  if (static_program.empty()) GTEST_SKIP() << "no static test program in this build";
  AllocatorSpec system;
  system.name = "system";
  system.kind = AllocatorKind::drop_in;
  nlohmann::json params = params_of("prog-lua", 100);
  params["program"]["command"] = {static_program};
  params["program"]["input"] = {{"generator", ""}, {"file", ""}};
  EXPECT_NE(refusal_reason(e, system, params, 1).find("statically linked: " + static_program + " has no ELF interpreter"), std::string::npos)
      << refusal_reason(e, system, params, 1);
}

TEST(ProgramCell, OneThreadInTheMatrix) {
  const nlohmann::json p = params_of("prog-xz", 100);
  const WorkloadEntry& e = workload_entry("prog-xz");
  EXPECT_NO_THROW(e.check(p, 1));
  EXPECT_THROW(e.check(p, 2), std::invalid_argument);
  const InputDefaults d = e.input_defaults(p, nlohmann::json::object());
  EXPECT_EQ(d.threads, 1u);
  EXPECT_TRUE(d.threads_fixed);
  nlohmann::json lua = params_of("prog-lua", 100);
  lua["program_threads"] = 4;  // lua takes no threads
  EXPECT_THROW(e.check(lua, 1), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
