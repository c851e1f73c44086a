// libFuzzer target for the calibration files a matrix run reads on this host: the reproduction
// calibration (results/reproduction.hpp, written by `allocstress calibrate RUN.json ...`) and the
// machine costs (results/machine_costs.hpp, written by `allocstress calibrate --costs`).  Each
// input is read as both.
//
// Contract: read_calibration(path) and read_machine_costs(path) on any bytes either return the
// document or throw std::runtime_error naming the file.  What a run does with the file never
// throws: calibration_for_host(path, host) gives the calibration or null with the reason, and
// attach_reproduction widens the records' intervals with an accepted one; machine_costs_for_host
// gives the costs or uncalibrated ones with the reason in `source`, and price_counts prices a
// counts block with them.  (The host asked for is the file's own, so that the file is used.)
// Any other exception, a crash, a sanitizer report, a leak, a timeout or an allocation beyond
// libFuzzer's limit is a finding.
#include "results/machine_costs.hpp"
#include "results/reproduction.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

using Json = nlohmann::json;

// The host the file names (so that the run uses it), or one it does not.
std::string host_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  const Json doc = Json::parse(in, nullptr, false);
  return doc.is_object() && doc.contains("host_name") && doc.at("host_name").is_string() ? doc.at("host_name").get<std::string>() : "fuzz-host";
}

// Timing records of one cell, and its median aggregate, for attach_reproduction.
const std::vector<Json>& records() {
  static const std::vector<Json> r = [] {
    std::vector<Json> out;
    for (double ns : {10.0, 11.0, 12.0, 10.5, 11.5, 12.5, 9.5})
      out.push_back({{"run_type", "iteration"}, {"status", "ok"}, {"mode", "timing"}, {"workload", "alloc-test"}, {"allocator", "bump"},
                     {"threads", 1}, {"net_ns_per_pair", ns}, {"ns_per_pair", ns + 1}});
    return out;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  const std::filesystem::path path = fuzz::input_file(data, size, "calibration.json");
  const std::string host = host_of(path);

  fuzz::within_contract<std::runtime_error>("read_calibration", [&] { read_calibration(path); });
  fuzz::within_contract<>("calibration_for_host and attach_reproduction", [&] {
    std::string why_not;
    const Json calibration = calibration_for_host(path, host, why_not);
    fuzz::require(calibration.is_object() != !why_not.empty(), "calibration_for_host gave neither a calibration nor a reason");
    std::vector<Json> aggregates = {{{"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", "bump"}, {"threads", 1}}};
    attach_reproduction(aggregates, records(), calibration);
  });

  fuzz::within_contract<std::runtime_error>("read_machine_costs", [&] { read_machine_costs(path); });
  fuzz::within_contract<>("machine_costs_for_host and price_counts", [&] {
    const MachineCosts costs = machine_costs_for_host(path, host);
    Json counts = {{"events", {{"Ir", 1000}, {"Dr", 300}, {"Dw", 200}, {"I1mr", 3}, {"D1mr", 20}, {"D1mw", 10}, {"ILmr", 1}, {"DLmr", 5}, {"DLmw", 2}}},
                   {"units", 100},
                   {"kernel_events", {{"minor_faults", 10}, {"syscalls", {{"mmap", 2}, {"munmap", 1}, {"futex", 4}}}}}};
    price_counts(counts, costs);
  });
  return 0;
}
