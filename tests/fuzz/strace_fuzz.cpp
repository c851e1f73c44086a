// libFuzzer target for strace's output as allocstress reads it (platform/profilers/syscall_trace.hpp): the
// trace of a cell's measured phase (`strace -f -T`, between the phase markers) and the summary
// table of a real program's run (`strace -f -c`).  Each input is read as both.
//
// Contract: syscalls_in_phase(path) and syscalls_in_summary(path) on any bytes either return the
// counts block or throw std::runtime_error naming the file.  A returned block counts every traced
// call (and, for the summary, "other"), and kernel_event_figures of its counts -- the record's
// kernel_events block -- throws nothing and turns into JSON text.  Any other exception, a crash,
// a sanitizer report, a leak, a timeout or an allocation beyond libFuzzer's limit is a finding.
#include "platform/json_text.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

void check_block(const nlohmann::json& block, bool other) {
  using namespace allocstress;
  const nlohmann::json& counts = block.at("counts");
  for (const char* name : kTracedSyscalls) fuzz::require(counts.contains(name) && counts.at(name).is_number_unsigned(), std::string("no count of ") + name);
  if (other) fuzz::require(counts.contains("other"), "no count of the other calls");
  json_text(kernel_event_figures(10, 0, counts, 1000, "pair"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  const std::filesystem::path path = fuzz::input_file(data, size, "strace.out");
  nlohmann::json phase, summary;
  if (fuzz::within_contract<std::runtime_error>("syscalls_in_phase", [&] { phase = syscalls_in_phase(path); }))
    fuzz::within_contract<>("the phase's counts", [&] { check_block(phase, false); });
  if (fuzz::within_contract<std::runtime_error>("syscalls_in_summary", [&] { summary = syscalls_in_summary(path); }))
    fuzz::within_contract<>("the summary's counts", [&] { check_block(summary, true); });
  return 0;
}
