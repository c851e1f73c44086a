// Whether the allocator reached a program (see program_runs.hpp): every process of the program's
// tree wrote a line to the probe's log (platform/process/program_probe.hpp) saying where its `malloc`
// resolves.  The cell process itself already runs under the allocator (it verified its own
// malloc before measuring), so the program's processes must resolve malloc where the cell does.
#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/programs/program_runs.hpp"

namespace allocstress {

namespace {

constexpr std::size_t kListedProcesses = 200;  // a record lists at most this many processes

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

}  // namespace

PreloadVerdict judge_preload(const std::filesystem::path& probe_log, const std::string& watch, bool counted) {
  PreloadVerdict v;
  v.processes = read_probe_log(probe_log);
  const std::string expected = malloc_provider_path();
  std::vector<const ProbedProcess*> execs, missed, own;
  for (const ProbedProcess& p : v.processes)
    if (p.started) execs.push_back(&p);
  for (const ProbedProcess* p : execs) {
    if (p->malloc_object == expected) continue;
    missed.push_back(p);
    if (p->malloc_object == p->executable) own.push_back(p);
  }
  std::vector<std::string> missed_text;
  for (const ProbedProcess* p : missed) missed_text.push_back(p->executable + " (malloc from " + p->malloc_object + ")");
  if (execs.empty()) {
    v.failure = "no process of the program reported to the probe: LD_PRELOAD never ran in it (a statically linked program, or one "
                "that clears its environment), so the allocator cannot have been used";
  } else if (missed.size() == execs.size()) {
    v.failure = !own.empty() ? "malloc resolves into the program itself (" + own.front()->executable +
                                   " brings its own allocator): the preloaded allocator is never called"
                             : "malloc did not resolve into " + expected + " in any of the " + std::to_string(execs.size()) +
                                   " process(es) that ran: " + joined(missed_text);
  } else if (!missed.empty()) {
    v.warnings.push_back(std::to_string(missed.size()) + " of " + std::to_string(execs.size()) +
                         " processes of the program ran without the allocator: " + joined(missed_text));
  }
  std::uint64_t calls = 0;
  std::size_t counted_processes = 0;
  for (const ProbedProcess& p : v.processes)
    if (p.allocation_calls) calls += *p.allocation_calls, ++counted_processes;
  if (counted && v.failure.empty()) {
    if (counted_processes == 0)
      v.warnings.push_back("the allocation calls could not be counted: no process of the program exited through exit()");
    else if (calls == 0)
      v.failure = "the program never called malloc (0 allocation calls counted in " + std::to_string(counted_processes) +
                  " process(es)): its memory does not come from the allocator, so no allocator can change it";
  }
  nlohmann::json list = nlohmann::json::array();
  for (const ProbedProcess& p : v.processes) {
    if (list.size() == kListedProcesses) break;
    list.push_back({{"pid", p.pid},
                    {"ppid", p.ppid},
                    {"executable", p.executable},
                    {"forked", p.forked},
                    {"malloc_from", p.started ? nlohmann::json(p.malloc_object) : nlohmann::json(nullptr)},
                    {"allocator_mapped", p.allocator_mapped ? nlohmann::json(*p.allocator_mapped) : nlohmann::json(nullptr)},
                    {"peak_rss_mib", p.peak_rss_kib ? nlohmann::json(double(*p.peak_rss_kib) / 1024.0) : nlohmann::json(nullptr)},
                    {"allocation_calls", p.allocation_calls ? nlohmann::json(*p.allocation_calls) : nlohmann::json(nullptr)}});
  }
  v.block = {{"expected_library", watch.empty() ? nlohmann::json(nullptr) : nlohmann::json(watch)},
             {"malloc_expected_from", expected},
             {"observed", !execs.empty()},
             {"executable", execs.empty() ? nlohmann::json(nullptr) : nlohmann::json(execs.front()->executable)},
             {"library_mapped", watch.empty() || execs.empty() || !execs.front()->allocator_mapped ? nlohmann::json(nullptr)
                                                                                                    : nlohmann::json(*execs.front()->allocator_mapped)},
             {"processes", execs.size()},
             {"processes_reached", execs.size() - missed.size()},
             {"allocation_calls", counted && counted_processes > 0 ? nlohmann::json(calls) : nlohmann::json(nullptr)},
             {"how", std::string("each process of the program wrote, from the probe library preloaded beside the allocator, where its malloc "
                                 "resolves (dlsym) and whether the allocator's library is mapped") +
                         (counted ? "; this verification run also counted its allocation calls" : "")}};
  v.block["process_list"] = std::move(list);
  return v;
}

}  // namespace allocstress
