// Test support for the probe libraries in real processes (probe_processes_test.cpp,
// probe_counts_test.cpp): the libraries and test programs the build names, a scratch folder, and a
// run of a program with the probe preloaded whose log is read back (ProbeRun), plus the count of
// allocation calls one run's exit line gives.  Only where the build has the probe libraries
// (ALLOCSTRESS_PROBE_LIBRARY defined: not in sanitizer builds).
#pragma once

#if defined(ALLOCSTRESS_PROBE_LIBRARY)

#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "platform/process/child_process.hpp"
#include "platform/process/program_probe.hpp"

namespace allocstress::probe_testing {

namespace fs = std::filesystem;

inline const std::string kReport = ALLOCSTRESS_PROBE_LIBRARY;
inline const std::string kCount = ALLOCSTRESS_PROBE_COUNT_LIBRARY;
inline const std::string kTarget = ALLOCSTRESS_PROBE_TARGET;          // a C program
inline const std::string kCxxTarget = ALLOCSTRESS_PROBE_CXX_TARGET;   // the same, linked with libstdc++
inline const std::string kOwnMallocTarget = ALLOCSTRESS_PROBE_OWN_MALLOC_TARGET;  // the same, its own malloc
inline const std::string kNoPieTarget = ALLOCSTRESS_PROBE_NO_PIE_TARGET;  // the same, not PIE, taking malloc's address
inline const char* const kJemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

inline std::string canonical(const std::string& path) { return fs::canonical(path).string(); }

// A fresh folder, removed with what it holds when the test ends (passed or not).
struct Scratch {
  fs::path dir = make_temporary_folder("allocstress-probe-test-");
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

inline std::string libc_path() {
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  Dl_info info{};
  const bool found = libc != nullptr && dladdr(dlsym(libc, "malloc"), &info) != 0;
  if (libc != nullptr) dlclose(libc);
  return found ? canonical(info.dli_fname) : std::string();
}

struct ProbeRun {
  ChildOutcome outcome;
  std::string log;  // its text
  std::vector<ProbedProcess> processes;
  std::size_t malformed = 0;
  const ProbedProcess* first() const { return processes.empty() ? nullptr : &processes.front(); }
};

// Runs argv with LD_PRELOAD=preload and the probe's variables (`watch` nullopt: unset).
inline ProbeRun probe_run(const std::vector<std::string>& argv, const std::string& preload,
                   const std::optional<std::string>& watch = std::nullopt) {
  const Scratch scratch;
  const fs::path log = scratch.dir / "probe.log";
  ProbeRun r;
  r.outcome = run_child(argv, {{"LD_PRELOAD", preload}, {"ALLOCSTRESS_PROBE_LOG", log.string()}, {"ALLOCSTRESS_PROBE_WATCH", watch}}, 120);
  std::ifstream in(log);
  std::ostringstream text;
  text << in.rdbuf();
  r.log = text.str();
  r.processes = read_probe_log(log, &r.malformed);
  return r;
}

inline std::size_t lines_starting(const std::string& text, const std::string& tag) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(tag + " ", 0) == 0;
  return n;
}

// The CALLS of the first process's exit line (the one process of these runs).
inline std::uint64_t calls_of(const std::vector<std::string>& steps, const std::string& target = kTarget,
                       const std::string& preload = kCount) {
  std::vector<std::string> argv = {target};
  argv.insert(argv.end(), steps.begin(), steps.end());
  const ProbeRun r = probe_run(argv, preload);
  EXPECT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  EXPECT_EQ(r.processes.size(), 1u) << r.log;
  if (r.processes.size() != 1 || !r.processes[0].allocation_calls) {
    ADD_FAILURE() << "no count in " << r.log;
    return 0;
  }
  return *r.processes[0].allocation_calls;
}

}  // namespace allocstress::probe_testing

#endif
