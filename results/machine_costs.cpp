// See machine_costs.hpp for the model and the file.
#include "results/machine_costs.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "platform/profilers/instruction_counts.hpp"
#include "platform/json_text.hpp"
#include "results/reproduction.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

// The costs the model needs from a file, with the kernel events they price.
constexpr const char* kUserCosts[] = {"cycles_per_instruction", "l1_latency", "last_level_latency", "ram_latency"};
constexpr const char* kKernelCosts[] = {"minor_fault", "mmap", "munmap", "madvise", "brk", "mprotect", "mremap", "syscall"};

double count(const Json& events, const char* name) {
  const Json& v = events.value(name, Json());
  return v.is_number() ? v.get<double>() : 0.0;
}

bool has_median(const Json& costs, const char* name) {
  return costs.contains(name) && costs.at(name).is_object() && costs.at(name).value("median", Json()).is_number();
}

Json per(const Json& total, double units) { return total.is_number() && units > 0 ? Json(total.get<double>() / units) : Json(nullptr); }

// A text member of `object` as the file has it, or `otherwise` when it is absent or not text
// (found with the fuzz harness tests/fuzz/calibration_fuzz.cpp: value("created", "") threw type_error on
// a number, out of a function that never throws).
std::string text_or(const Json& object, const char* name, const std::string& otherwise) {
  const Json& v = object.is_object() ? object.value(name, Json()) : Json();
  return v.is_string() ? v.get<std::string>() : otherwise;
}

}  // namespace

std::filesystem::path default_machine_costs_path() {
  if (const char* explicit_path = std::getenv("ALLOCSTRESS_COSTS"); explicit_path != nullptr && *explicit_path != '\0') return explicit_path;
  return default_calibration_path().parent_path() / "machine-costs.json";
}

Json read_machine_costs(const std::filesystem::path& path) {
  Json doc = read_json_file(path, "machine costs");
  check_machine_costs(doc, path);
  return doc;
}

bool is_machine_costs_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  const Json doc = Json::parse(in, nullptr, false);
  return doc.is_object() && doc.value("schema", "") == kMachineCostsSchemaName;
}

void check_machine_costs(const Json& doc, const std::filesystem::path& path) {
  if (!doc.is_object() || doc.value("schema", "") != kMachineCostsSchemaName || doc.value("schema_version", 0) != kMachineCostsSchemaVersion)
    throw std::runtime_error("machine costs " + path.string() + " is not an " + kMachineCostsSchemaName + " file of version " +
                             std::to_string(kMachineCostsSchemaVersion));
  if (!doc.value("host_name", Json()).is_string() || !doc.value("costs", Json()).is_object())
    throw std::runtime_error("machine costs " + path.string() + " lacks host_name or costs");
  for (const char* name : kKernelCosts)
    if (!has_median(doc.at("costs"), name))
      throw std::runtime_error("machine costs " + path.string() + " has no measured " + name + " (run `allocstress calibrate --costs` again)");
  for (const char* name : {"l1_latency", "last_level_latency", "ram_latency"})
    if (!has_median(doc.at("costs"), name))
      throw std::runtime_error("machine costs " + path.string() + " has no measured " + name + " (run `allocstress calibrate --costs` again)");
  if (!doc.at("costs").value("lines_per_page", Json::object()).value("value", Json()).is_number())
    throw std::runtime_error("machine costs " + path.string() + " has no lines_per_page (run `allocstress calibrate --costs` again)");
}

MachineCosts machine_costs_for_host(const std::filesystem::path& path, const std::string& host) {
  MachineCosts costs;
  const std::string uncalibrated = ": the user part at iai's fixed weights (1 cycle per instruction), the kernel part not priced";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    costs.source = {{"n/a", "no machine costs at " + path.string() + " (`allocstress calibrate --costs` measures them)" + uncalibrated}};
    return costs;
  }
  Json doc;
  try {
    doc = read_machine_costs(path);
  } catch (const std::runtime_error& e) {
    costs.source = {{"n/a", e.what() + uncalibrated}};
    return costs;
  }
  if (doc.at("host_name") != host) {
    costs.source = {{"n/a", "the machine costs at " + path.string() + " are host " + doc.at("host_name").get<std::string>() + "'s, not " + host +
                                "'s" + uncalibrated}};
    return costs;
  }
  const Json& c = doc.at("costs");
  costs.calibrated = true;
  // A CPI that could not be measured (not x86-64) is 1 tick per instruction; the source says so.
  costs.cycles_per_instruction = has_median(c, "cycles_per_instruction") ? c.at("cycles_per_instruction").at("median").get<double>() : 1.0;
  costs.l1_latency = c.at("l1_latency").at("median").get<double>();
  costs.last_level_latency = c.at("last_level_latency").at("median").get<double>();
  costs.ram_latency = c.at("ram_latency").at("median").get<double>();
  for (const char* name : kKernelCosts) costs.kernel[name] = c.at(name).at("median").get<double>();
  costs.lines_per_page = c.at("lines_per_page").at("value").get<double>();
  Json medians = Json::object();
  for (const char* name : kUserCosts)
    medians[name] = has_median(c, name) ? c.at(name).at("median") : Json("n/a: " + text_or(c.value(name, Json()), "n/a", "missing"));
  for (const char* name : kKernelCosts) medians[name] = c.at(name).at("median");
  costs.source = {{"file", path.string()}, {"created", text_or(doc, "created", "")}, {"host_name", host}, {"unit", text_or(doc, "unit", "")},
                  {"medians", medians}};
  return costs;
}

double user_cycles(const Json& events, const MachineCosts& costs, double minor_faults) {
  if (!costs.calibrated) return double(estimated_cycles(events));
  const double l1_misses = count(events, "I1mr") + count(events, "D1mr") + count(events, "D1mw");
  const double ram = count(events, "ILmr") + count(events, "DLmr") + count(events, "DLmw");
  const double fresh = std::min(ram, costs.lines_per_page * minor_faults);
  const double ll_hits = std::max(l1_misses - ram, 0.0) + fresh;
  return costs.cycles_per_instruction * count(events, "Ir") + std::max(costs.last_level_latency - costs.l1_latency, 0.0) * ll_hits +
         std::max(costs.ram_latency - costs.l1_latency, 0.0) * (ram - fresh);
}

std::optional<double> kernel_cycles(const Json& kernel_events, const MachineCosts& costs) {
  if (!costs.calibrated || !kernel_events.is_object() || !kernel_events.value("minor_faults", Json()).is_number()) return std::nullopt;
  double total = count(kernel_events, "minor_faults") * costs.kernel.at("minor_fault");
  const Json syscalls = kernel_events.value("syscalls", Json::object());  // a copy: items() must not outlive it
  for (const auto& [name, n] : syscalls.items()) {
    const auto it = costs.kernel.find(name);
    total += n.get<double>() * (it != costs.kernel.end() ? it->second : costs.kernel.at("syscall"));
  }
  return total;
}

std::string estimated_cycles_formula(const MachineCosts& costs) {
  if (!costs.calibrated)
    return "L1 hits + " + std::to_string(kLastLevelHitWeight) + " x LL hits + " + std::to_string(kRamHitWeight) +
           " x RAM hits (iai's fixed weights, Turner-Trauring); kernel events not priced: no usable machine costs for this host";
  return "this machine's costs (allocstress calibrate --costs): CPI x instructions + (LL - L1 latency) x LL hits + (RAM - L1 latency) x "
         "RAM hits, the first touches of freshly faulted pages (up to lines per page x faults) charged as LL hits, plus faults and memory "
         "system calls x their measured costs";
}

void price_counts(Json& counts, const MachineCosts& costs) {
  const double units = counts.value("units", 0.0);
  const std::optional<double> kernel = kernel_cycles(counts.value("kernel_events", Json()), costs);
  const double faults = kernel ? counts.at("kernel_events").at("minor_faults").get<double>() : 0.0;
  const Json user = user_cycles(counts.value("events", Json::object()), costs, faults);
  counts["estimated_user_cycles"] = user;
  counts["estimated_user_cycles_per_unit"] = per(user, units);
  counts["estimated_kernel_cycles"] = kernel ? Json(*kernel) : Json(nullptr);
  counts["estimated_kernel_cycles_per_unit"] = per(counts["estimated_kernel_cycles"], units);
  if (!kernel)
    counts["kernel_cycles_na"] = !costs.calibrated ? "no usable machine costs for this host (context.machine_costs says why)"
                                 : counts.value("kernel_events", Json::object()).contains("n/a")
                                     ? "no kernel events: " + counts.at("kernel_events").at("n/a").get<std::string>()
                                     : std::string("no kernel events in this record");
  counts["estimated_cycles"] = user.get<double>() + kernel.value_or(0.0);
  counts["estimated_cycles_per_unit"] = per(counts["estimated_cycles"], units);
  counts["estimated_cycles_formula"] = estimated_cycles_formula(costs);
  counts["cost_model"] = costs.calibrated ? "a model of the clock calibrated on this machine (machine costs of " + costs.source.value("created", std::string("?")) + ")"
                                          : std::string("uncalibrated: iai's fixed weights, kernel events not priced (context.machine_costs says why)");
  // The allocator's calls and each worker (N threads) carry their own events: their user part.
  auto price_user = [&](Json& block, double block_units) {
    if (!block.is_object() || !block.contains("events")) return;
    block["estimated_cycles"] = user_cycles(block.at("events"), costs);
    block["estimated_cycles_per_unit"] = per(block["estimated_cycles"], block_units);
  };
  if (counts.contains("allocator_calls")) price_user(counts["allocator_calls"], units);
  if (counts.contains("per_worker") && counts.at("per_worker").is_array())
    for (Json& worker : counts["per_worker"]) {
      price_user(worker, worker.value("units", 0.0));
      if (worker.contains("allocator_calls")) price_user(worker["allocator_calls"], worker.value("units", 0.0));
    }
}

}  // namespace allocstress
