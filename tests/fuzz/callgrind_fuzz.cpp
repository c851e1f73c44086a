// libFuzzer target for callgrind's output as allocstress reads it (platform/profilers/callgrind_profile.hpp:
// the counts tier, program counts; platform/profilers/cache_simulation.hpp: `--cache-sim`'s figures).
//
// Contract: read_callgrind_profile(path) and simulated_cache_figures(path) on any bytes either
// return or throw std::runtime_error naming the file.  A returned profile has one total per
// event; what the counts tier then does with it never throws: summed_profiles of it twice (the
// per-thread profiles of a cell) gives twice its totals, and instruction_count_figures prices it
// under the drop-in rule (calls out of the workload's object) and the program rule (calls into an
// allocator object, and glibc's malloc family by name).  Any other exception, a crash, a
// sanitizer report, a leak, a timeout or an allocation beyond libFuzzer's limit is a finding.
#include "platform/profilers/cache_simulation.hpp"
#include "platform/profilers/callgrind_profile.hpp"
#include "platform/profilers/instruction_counts.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  const std::filesystem::path path = fuzz::input_file(data, size, "callgrind.out");
  fuzz::within_contract<std::runtime_error>("simulated_cache_figures", [&] { simulated_cache_figures(path); });
  CallgrindProfile p;
  if (!fuzz::within_contract<std::runtime_error>("read_callgrind_profile", [&] { p = read_callgrind_profile(path); })) return 0;
  fuzz::require(!p.events.empty() && p.totals.size() == p.events.size(), "a profile without one total per event");
  fuzz::within_contract<>("the counts tier on an accepted profile", [&] {
    const CallgrindProfile twice = summed_profiles({p, p});
    for (std::size_t i = 0; i < p.totals.size(); ++i) fuzz::require(twice.totals[i] == 2 * p.totals[i], "summed totals are not the sum");
    const std::string workload = p.self.empty() ? std::string("/usr/bin/allocstress") : p.self.begin()->first.first;
    instruction_count_figures(p, 1000, "pair", OutsideCalls{.workload_object = workload}, "n/a");
    instruction_count_figures(p, 0, "run", OutsideCalls{.allocator_object = workload}, "n/a");
    instruction_count_figures(p, 1, "run", OutsideCalls{.allocator_object = "libc.so.6", .allocator_functions = glibc_malloc_functions()}, "n/a");
    instruction_count_figures(p, 1, "run", std::nullopt, "no rule");
  });
  return 0;
}
