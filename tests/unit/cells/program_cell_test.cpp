// The prog-* registry entries (cells/program_cell.cpp) with the invocation API the `programs`
// command uses (workloads/programs/program_invocation.hpp): prepare writes the generated input,
// program_invocation runs it standalone (prog-redis as its sh driver), refusals and thread rules.
#include <gtest/gtest.h>

#include <filesystem>

#include "cells/workload_registry.hpp"
#include "platform/child_process.hpp"
#include "platform/program_run.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {
namespace {

nlohmann::json params_of(const std::string& workload, unsigned work) {
  nlohmann::json p = workload_entry(workload).defaults(AllocTestParams{});
  p["work"] = work;
  return p;
}

// Prepares the workload's inputs into a fresh folder and runs its invocation once.
ProgramOutcome run_once(const std::string& workload, unsigned work) {
  const nlohmann::json params = params_of(workload, work);
  const std::filesystem::path folder = make_temporary_folder("allocstress-prog-test-");
  const nlohmann::json inputs = workload_entry(workload).prepare(params, folder);
  const ProgramInvocation how = program_invocation(workload, params, inputs);
  ProgramSpec spec{how.argv, how.working_directory, {}, ""};
  const ProgramOutcome o = run_program(spec, 120);
  std::filesystem::remove_all(folder);
  return o;
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
  if (!program_unavailable("prog-lua", {}).empty()) GTEST_SKIP() << program_unavailable("prog-lua", {});
  const ProgramOutcome o = run_once("prog-lua", 5);
  ASSERT_TRUE(o.succeeded()) << o.failure();
  EXPECT_NE(o.out.find("prog-lua\t4000\tsteps"), std::string::npos) << o.out;
}

TEST(ProgramCell, RedisInvocationIsADriverThatEnds) {
  if (!program_unavailable("prog-redis", {}).empty()) GTEST_SKIP() << program_unavailable("prog-redis", {});
  const ProgramOutcome o = run_once("prog-redis", 5);
  ASSERT_TRUE(o.succeeded()) << o.failure() << o.err;
  EXPECT_NE(o.out.find("\"SET\""), std::string::npos) << o.out;
}

TEST(ProgramCell, InTreeAndVoidAreRefused) {
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
}

TEST(ProgramCell, OneThreadInTheMatrix) {
  const WorkloadEntry& e = workload_entry("prog-xz");
  const nlohmann::json p = params_of("prog-xz", 100);
  EXPECT_NO_THROW(e.check(p, 1));
  EXPECT_THROW(e.check(p, 2), std::invalid_argument);
  const InputDefaults d = e.input_defaults(p, nlohmann::json::object());
  EXPECT_EQ(d.threads, 1u);
  EXPECT_TRUE(d.threads_fixed);
  EXPECT_EQ(p.at("program_threads"), 2);
}

}  // namespace
}  // namespace allocstress
