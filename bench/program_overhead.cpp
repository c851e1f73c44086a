// The harness's own cost per run of a real program (bench/README.md, "Program harness overhead"):
// what `allocstress bench` and the program cells add to a run of /bin/true, against a bare
// fork + exec + wait of it from this process.
//
//   bare     fork, execve /bin/true, waitpid                              (the floor)
//   harness  one run as a cell makes it (cells/programs/program_runs.hpp): the program's environment,
//            fork/exec with the probe preloaded, stdout drained and hashed, wait4 rusage, the
//            probe's log read and judged -- what separates two runs inside a cell process
//   figure   the wall_s that run records (fork to reaped, probe included)
//   cell     a whole `allocstress run --cell` process per run, as the local backend starts one
//            for every repetition (exec of allocstress, its LD_PRELOAD re-exec, topology, the
//            run, the record printed), timed from this process
//
// Usage: allocstress_program_overhead [RUNS]   (default 200; prints one JSON object)
// Run it alone (flock /tmp/allocstress-measure.lock ...): on a 2-core VM anything beside it shows.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cells/programs/program_runs.hpp"
#include "platform/process/child_process.hpp"
#include "platform/process/program_probe.hpp"

namespace fs = std::filesystem;
using namespace allocstress;

namespace {

double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

nlohmann::json summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))]; };
  return {{"median_ms", at(0.5)}, {"p10_ms", at(0.1)}, {"p90_ms", at(0.9)}, {"runs", v.size()}};
}

double bare_run() {
  const double t0 = now_ms();
  const pid_t pid = fork();
  if (pid == 0) {
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    execve(argv[0], argv, environ);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return now_ms() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  ProgramDefinition p;
  p.name = "true";
  p.command = {"/bin/true"};
  const nlohmann::json params = {{"program", to_json(p)}, {"work", 100}, {"program_threads", 1}, {"seed", 1}};
  const fs::path dir = make_temporary_folder("allocstress-overhead-");
  const nlohmann::json inputs = {{"folder", dir.string()}};
  const fs::path exe = fs::read_symlink("/proc/self/exe").parent_path() / "allocstress";
  const fs::path cell = dir / "cell.json";
  std::ofstream(cell) << nlohmann::json({{"allocator", "system"}, {"workload", "true"}, {"threads", 1}, {"params", params}}).dump();

  std::vector<double> bare, harness, figure, whole;
  for (int i = 0; i < runs + 10; ++i) {
    const double b = bare_run();
    const fs::path log = dir / ("probe-" + std::to_string(i) + ".log");
    const double t0 = now_ms();
    const ProgramRunResult r = run_program_once(
        p, params, inputs, {{"LD_PRELOAD", probe_library(false).string()}, {"ALLOCSTRESS_PROBE_LOG", log.string()}, {"ALLOCSTRESS_PROBE_WATCH", ""}}, 0);
    const PreloadVerdict v = judge_preload(log, "", false);
    const double h = now_ms() - t0;
    if (!r.failure.empty() || !v.failure.empty()) {
      std::cerr << "program_overhead: the harness run failed: " << r.failure << v.failure << "\n";
      return 1;
    }
    const double c0 = now_ms();
    const ChildOutcome o = run_child({exe.string(), "run", "--cell", cell.string()}, {}, 60);
    const double c = now_ms() - c0;
    if (!o.succeeded()) {
      std::cerr << "program_overhead: the cell process failed: " << describe_failure(o, 60) << "\n";
      return 1;
    }
    if (i < 10) continue;  // warm-up: page cache, the dynamic loader's caches
    bare.push_back(b);
    harness.push_back(h);
    figure.push_back(r.program.wall_s * 1e3);
    whole.push_back(c);
  }
  fs::remove_all(dir);
  const nlohmann::json out = {{"bare", summary(bare)},
                              {"harness", summary(harness)},
                              {"figure", summary(figure)},
                              {"cell_process", summary(whole)},
                              {"harness_minus_bare_median_ms", summary(harness).at("median_ms").get<double>() - summary(bare).at("median_ms").get<double>()},
                              {"figure_minus_bare_median_ms", summary(figure).at("median_ms").get<double>() - summary(bare).at("median_ms").get<double>()},
                              {"cell_minus_bare_median_ms", summary(whole).at("median_ms").get<double>() - summary(bare).at("median_ms").get<double>()}};
  std::cout << out.dump(2) << "\n";
  return 0;
}
