// Fingerprint, sample pass and syscall pass of a profile run (see profile_run.hpp).
#include "run/profile_run.hpp"
#include "run/child_command.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "plan/cell_encoding.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "results/record_printing.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "results/results_journal.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "platform/json_text.hpp"

namespace allocstress {

namespace {

constexpr double kPassTimeoutS = 0;  // the matrix's cell timeout covers the whole profile run

struct Bounds {
  std::uint64_t small_limit = 1024, large_from = 0;
  std::string source;
};

Bounds bounds_from(const nlohmann::json& fp) {
  Bounds b;
  b.large_from = fp.value("large_threshold_at_start", nlohmann::json()).is_number() ? fp["large_threshold_at_start"].get<std::uint64_t>() : 0;
  if (!fp["size_classes"].is_array()) {
    b.source = "small below 1024 B (default: no usable sizes to find class spacing)";
    return b;
  }
  std::uint64_t previous = 0;
  b.small_limit = 65537;  // every class up to 64 KiB is finely spaced
  for (const auto& c : fp["size_classes"]) {
    const auto u = c.at("usable").get<std::uint64_t>();
    if (previous != 0 && u - previous >= 1024) {
      b.small_limit = c.at("first_request").get<std::uint64_t>();
      break;
    }
    previous = u;
  }
  b.source = "fingerprint: small below the first size class at least 1 KiB above its predecessor; large from the "
             "large-object threshold at start";
  return b;
}

// Runs one pass and returns its record, or prints why not and returns a discarded value.
nlohmann::json run_pass(const std::vector<std::string>& argv, const EnvironmentChanges& env, const char* what) {
  const ChildOutcome o = run_child(argv, env, kPassTimeoutS);
  nlohmann::json record = o.end == ChildOutcome::End::exited ? last_json_line(o.out) : nlohmann::json();
  if (!o.succeeded() || !record.is_object()) {
    std::cerr << "allocstress: error: profile " << what << " failed: " << describe_failure(o, kPassTimeoutS) << "\n";
    if (record.is_object()) std::cout << json_text(record) << std::endl;
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  return record;
}

}  // namespace

int run_profile(const Cell& cell, const AllocatorSpec& spec) {
  std::error_code ec;
  const std::string exe = allocstress_executable();
  const EnvironmentChanges env = preload_environment(spec);
  const nlohmann::json fp = run_pass(probe_one_command(exe, cell), env, "fingerprint");
  if (fp.is_discarded()) return kExitCellFailed;
  const Bounds bounds = bounds_from(fp);

  // Each pass is the same cell, told which pass it is, as a cell file.
  const std::filesystem::path dir = make_temporary_folder("allocstress-profile-"), trace = dir / "trace";
  auto pass_argv = [&](const char* pass) {
    Cell c = cell;
    c.profile.pass = pass;
    c.profile.small_limit = bounds.small_limit;
    c.profile.large_from = bounds.large_from;
    const std::filesystem::path file = dir / (std::string(pass) + "-cell.json");
    write_file_atomically(file, json_text(cell_to_json(c)) + "\n");
    return run_cell_command(exe, file.string());
  };
  nlohmann::json record = run_pass(pass_argv("sample"), env, "sample pass");
  if (record.is_discarded()) {
    std::filesystem::remove_all(dir, ec);
    return kExitCellFailed;
  }
  const std::vector<std::string> traced = syscall_trace_command(pass_argv("syscalls"), trace);
  const nlohmann::json traced_record = run_pass(traced, env, "syscall pass");
  nlohmann::json syscalls;
  std::string failure;
  if (traced_record.is_discarded()) {
    failure = "the syscall pass failed";
  } else {
    try {
      syscalls = syscalls_in_phase(trace);
      syscalls["pass_wall_time_ns"] = traced_record.value("wall_time_ns", 0);
      syscalls["command"] = shell_command_line(traced);
    } catch (const std::runtime_error& e) {
      failure = e.what();
    }
  }
  std::filesystem::remove_all(dir, ec);

  record["mode"] = "profile";
  record["profile"]["fingerprint"] = fp;
  record["profile"]["size_class_bounds"]["source"] = bounds.source;
  record["profile"]["syscalls"] = syscalls.is_null() ? nlohmann::json{{"status", "n/a"}, {"reason", failure}} : syscalls;
  if (!failure.empty() && record.value("status", "") == "ok") {
    record["status"] = "failed";
    record["reason"] = "profile: " + failure;
  }
  return print_cell_record(record);
}

}  // namespace allocstress
