// Real-program cells and their registry entries (the `programs` family, one entry per row of
// workloads/programs/program_table.hpp).  A repetition runs the program once in a fresh process,
// a child of this cell process, which already runs under the drop-in allocator's LD_PRELOAD: the
// child inherits it, and the cell checks in the child's own /proc/PID/maps and environ that it
// did (platform/program_run.hpp).  Starting that process is the cells' one documented exception
// to "never forks" (cells/README.md); the spawning code itself is platform/'s.
//
// The record's figures come from wait4()'s rusage of the program and the descendants it waited
// for (gcc's cc1 and as): wall, user and system time, peak RSS (the largest process of the tree),
// minor faults, and the program's own throughput where it prints one.  A server program
// (prog-redis) is measured from start to shutdown; its wall time is the client's load alone, and
// the client runs without the preload, so that only the server's allocator differs.
//
// In the matrix a program cell is one thread: one program process (the program's own threads, as
// xz -T2, are its parameter `program_threads`, recorded).  Every program fixes 1 thread, so all
// prog-* workloads share one matrix; a non-program workload in the same matrix runs at 1 thread too.
#include <filesystem>

#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/cell_record.hpp"
#include "cells/params_json.hpp"
#include "cells/workload_registry.hpp"
#include "platform/durable_files.hpp"
#include "platform/program_run.hpp"
#include "workloads/programs/program_invocation.hpp"
#include "workloads/programs/program_table.hpp"

namespace allocstress {

namespace {

constexpr const char* kDropInOnly = "a real program can only run under a drop-in allocator (LD_PRELOAD)";
constexpr double kServerStartTimeoutS = 20;

const ProgramDefinition& definition_of(std::string_view workload) {
  const ProgramDefinition* p = find_program(workload);
  if (p == nullptr) throw std::invalid_argument("'" + std::string(workload) + "' is not a program workload");
  return *p;
}

ProgramSpec spec_of(const ProgramInvocation& how, const std::string& watch) {
  ProgramSpec spec{how.argv, how.working_directory, {}, watch};
  for (const auto& [k, v] : how.environment) spec.environment[k] = v;
  return spec;
}

// The server program: started, loaded by its client (LD_PRELOAD removed), shut down, reaped.
// Returns the server's outcome with the client's wall time, output and failure folded in.
ProgramOutcome run_server(const Cell& cell, const std::string& watch) {
  const ServerInvocation s = server_invocation(cell.workload, cell.params, cell.inputs, free_loopback_port());
  RunningProgram server(spec_of(s.server, watch));
  if (!wait_for_loopback_port(s.port, kServerStartTimeoutS, &server)) {
    ProgramOutcome o = server.finish(1);
    if (o.end == ChildOutcome::End::exited && o.exit_code == 0) o.exit_code = 1;
    o.err += "\nthe server did not accept connections on 127.0.0.1:" + std::to_string(s.port);
    return o;
  }
  ProgramSpec client = spec_of(s.client, "");
  client.environment["LD_PRELOAD"] = std::nullopt;
  client.environment[kCellPreloadMarker] = std::nullopt;
  const ProgramOutcome load = run_program(client);
  send_to_loopback_port(s.port, s.shutdown_command);
  ProgramOutcome o = server.finish(30);
  o.wall_s = load.wall_s;
  o.out = load.out;
  if (!load.succeeded()) {
    o.end = load.end;
    o.exit_code = load.exit_code;
    o.signal = load.signal;
    o.err = "the client failed: " + load.failure();
  }
  return o;
}

// Whether the preload reached the program: "" or why not.
std::string preload_failure(const AllocatorSpec& allocator, const std::string& watch, const PreloadObservation& seen) {
  if (!seen.observed) return "";
  if (!watch.empty() && !seen.library_mapped)
    return "the allocator's library " + watch + " is not mapped into " + seen.executable + " (its LD_PRELOAD: '" + seen.ld_preload +
           "'): the preload did not reach the program";
  if (watch.empty() && !seen.ld_preload.empty())
    return "the program runs with LD_PRELOAD=" + seen.ld_preload + " under '" + allocator.name + "', which preloads nothing";
  return "";
}

nlohmann::json nullable(double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json run_program_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology&, const std::vector<unsigned>& pus) {
  const ProgramDefinition& p = definition_of(cell.workload);
  const std::string watch = required_preload(allocator);
  std::string failure = program_unavailable(cell.workload, cell.params);
  ProgramOutcome o;
  ProgramInvocation how;
  if (failure.empty()) {
    how = program_invocation(cell.workload, cell.params, cell.inputs);
    o = p.drive == ProgramDrive::server ? run_server(cell, watch) : run_program(spec_of(how, watch));
    if (!o.succeeded()) failure = o.failure();
    if (failure.empty()) failure = preload_failure(allocator, watch, o.preload);
  }
  PhaseMeasurement m;
  m.wall_ns = std::uint64_t(o.wall_s * 1e9);
  m.peak_rss = o.max_rss_kib * 1024;
  m.usage.minor_faults = o.minor_faults;
  m.usage.major_faults = o.major_faults;
  m.usage.user_time_ns = std::uint64_t(o.user_s * 1e9);
  m.usage.system_time_ns = std::uint64_t(o.sys_s * 1e9);
  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec["peak_rss_source"] = "ru_maxrss of wait4(): the largest resident set of the program or any descendant it waited for";
  for (const char* field : {"rss_before_bytes", "rss_end_bytes", "rss_after_free_bytes", "tsc_hz", "cycle_counter"}) rec.erase(field);
  const double throughput = failure.empty() ? program_throughput(p, o.out) : -1;
  rec["workload_metrics"] = {{"wall_s", o.wall_s},
                             {"user_s", o.user_s},
                             {"sys_s", o.sys_s},
                             {"peak_rss_mib", double(o.max_rss_kib) / 1024.0},
                             {"minor_faults", o.minor_faults},
                             {"throughput", nullable(throughput)}};
  const std::string binary = program_binary(p.executable);
  nlohmann::json preload = {{"expected_library", watch.empty() ? nlohmann::json(nullptr) : nlohmann::json(watch)},
                            {"observed", o.preload.observed}};
  if (o.preload.observed) {
    preload["executable"] = o.preload.executable;
    preload["ld_preload"] = o.preload.ld_preload;
    preload["library_mapped"] = watch.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.preload.library_mapped);
    preload["how"] = "read from the program's /proc/PID/maps and /proc/PID/environ once it had exec'd and mapped libc";
  } else if (failure.empty()) {
    rec["warnings"].push_back("the program ended before its preload could be read from /proc (it inherited LD_PRELOAD from this cell process)");
  }
  rec["program"] = {{"binary", binary.empty() ? nlohmann::json(nullptr) : nlohmann::json(binary)},
                    {"package", p.package},
                    {"package_version", binary.empty() ? nlohmann::json(nullptr) : nlohmann::json(debian_package_version(std::string(p.package)))},
                    {"command", shell_command_line(how.argv)},
                    {"working_directory", how.working_directory},
                    {"program_threads", cell.params.at("program_threads")},
                    {"work", program_work_text(cell.workload, cell.params)},
                    {"exit_code", o.end == ChildOutcome::End::exited ? nlohmann::json(o.exit_code) : nlohmann::json(nullptr)},
                    {"throughput_unit", p.throughput_unit.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.throughput_unit)},
                    {"measured", p.drive == ProgramDrive::server
                                     ? "the server from start to shutdown (rusage); wall_s: the client's load alone; the client runs without the preload"
                                     : "the program from fork to exit, with every descendant it waited for (wait4 rusage)"},
                    {"preload", preload}};
  if (p.drive == ProgramDrive::server) rec["program"]["client"] = shell_command_line(server_invocation(cell.workload, cell.params, cell.inputs, 0).client.argv);
  return rec;
}

// --- parameters -------------------------------------------------------------------------------

void check(const nlohmann::json& params, unsigned threads) {
  const ProgramDefinition& p = definition_of(params.value("workload", std::string()));
  const std::uint64_t work = count_field(params, "work");
  if (work < 1 || work > 10000)
    throw std::invalid_argument(std::string(p.workload) + ": --prog-work must be a percentage of the default work in 1..10000, got " + std::to_string(work));
  const std::uint64_t t = count_field(params, "program_threads");
  if (t < 1 || t > 64) throw std::invalid_argument(std::string(p.workload) + ": --prog-threads must be 1..64, got " + std::to_string(t));
  count_field(params, "seed");
  if (threads != 1)
    throw std::invalid_argument(std::string(p.workload) + " runs one program process per cell: 1 thread in the matrix, got " +
                                std::to_string(threads) + (p.takes_threads ? " (the program's own threads: --prog-threads)" : ""));
}

std::string describe(const nlohmann::json& params) {
  const std::string w = params.at("workload").get<std::string>();
  return std::string(definition_of(w).summary) + "; " + program_work_text(w, params) + "; seed " + params.at("seed").dump();
}

// Writes the generated input unless the same file is there already.
nlohmann::json prepare(const nlohmann::json& params, const std::filesystem::path& folder) {
  const ProgramDefinition& p = definition_of(params.at("workload").get<std::string>());
  nlohmann::json inputs = {{"folder", std::filesystem::absolute(folder).string()}};
  if (p.make_input == nullptr) return inputs;
  const std::uint64_t seed = count_field(params, "seed");
  const unsigned work = unsigned(count_field(params, "work"));
  const std::filesystem::path file =
      std::filesystem::absolute(folder) / (std::string(p.workload) + "-" + std::to_string(seed) + "-" + std::to_string(work) + "-" + std::string(p.input_file));
  const std::string text = p.make_input(seed, work);
  std::error_code ec;
  if (std::filesystem::file_size(file, ec) != text.size() || ec) write_file_atomically(file, text);
  inputs["input"] = file.string();
  return inputs;
}

InputDefaults input_defaults(const nlohmann::json&, const nlohmann::json&) {
  return {.threads = 1u, .threads_fixed = true, .seed = std::nullopt,
          .threads_reason = "a program cell is one program process (its own threads: --prog-threads)"};
}

std::string refusal(const AllocatorSpec& allocator, const nlohmann::json& params, unsigned) {
  if (allocator.kind != AllocatorKind::drop_in) return kDropInOnly;
  return program_unavailable(params.value("workload", std::string()), params);
}

// --- options and metrics ----------------------------------------------------------------------

const WorkloadOption kProgWorkOption{"--prog-work", "work", OptionKind::count,
                                     "prog-*: the program's work as a percentage of its default (100: about 0.3-2 s per run)", kProgramGroup};
const WorkloadOption kProgThreadsOption{"--prog-threads", "program_threads", OptionKind::count,
                                        "prog-xz, prog-rocksdb: the program's own threads (xz -T, db_bench --threads)", kProgramGroup};

constexpr Metric kWallS{.name = "wall_s", .place = MetricPlace::workload_metrics, .unit = "s", .label = "wall s", .decimals = 3,
                        .definition = "Wall time of one run of the program, fork to exit (prog-redis: the client's bounded load): the "
                        "headline, lower is faster.",
                        .headline = true, .in_table = true};
constexpr Metric kUserS{.name = "user_s", .place = MetricPlace::workload_metrics, .unit = "s", .label = "user s", .decimals = 3,
                        .definition = "User CPU time of the program and every descendant it waited for (wait4 rusage).", .in_table = true};
constexpr Metric kSysS{.name = "sys_s", .place = MetricPlace::workload_metrics, .unit = "s", .label = "sys s", .decimals = 3,
                       .definition = "System CPU time of the program and every descendant it waited for (wait4 rusage).", .in_table = true};
constexpr Metric kPeakRssMib{.name = "peak_rss_mib", .place = MetricPlace::workload_metrics, .unit = "MiB", .label = "peak RSS MiB",
                             .decimals = 1,
                             .definition = "ru_maxrss of wait4(): the largest resident set of the program or of any descendant it waited "
                             "for, in MiB; the memory headline, lower is leaner.",
                             .in_table = true, .memory_headline = true};
constexpr Metric kMinorFaults{.name = "minor_faults", .place = MetricPlace::workload_metrics, .unit = "count", .label = "minor faults",
                              .decimals = 0, .definition = "Minor page faults of the program and its waited-for descendants (wait4 rusage).",
                              .in_table = true};
constexpr Metric kThroughput{.name = "throughput", .place = MetricPlace::workload_metrics, .unit = "ops/s", .label = "throughput",
                             .decimals = 0,
                             .definition = "The program's own figure where it prints one (prog-redis: redis-benchmark's requests/s, "
                             "prog-rocksdb: db_bench's ops/s; the harmonic mean over its tests), else null.",
                             .in_table = true};

nlohmann::json defaults_of(const ProgramDefinition& p, const AllocTestParams& preset) {
  return {{"workload", p.workload}, {"work", 100}, {"program_threads", p.default_threads}, {"seed", preset.seed}};
}

template <std::size_t I>
WorkloadEntry program_entry() {
  const ProgramDefinition& p = program_table()[I];
  std::vector<const WorkloadOption*> options = {&kProgWorkOption};
  if (p.takes_threads) options.push_back(&kProgThreadsOption);
  options.push_back(&kSeedOption);
  return {.name = p.workload,
          .family = "programs",
          .summary = p.summary,
          .void_baseline = false,
          .void_refusal = "a real program cannot run on void (it never frees); its figures are the program's own, no baseline is subtracted",
          .table = TableKind::program,
          .options = options,
          .metrics = {&kWallS, &kUserS, &kSysS, &kPeakRssMib, &kMinorFaults, &kThroughput},
          .defaults = [](const AllocTestParams& preset) { return defaults_of(program_table()[I], preset); },
          .check = check,
          .describe = describe,
          .run = run_program_cell,
          .refusal = refusal,
          .prepare = prepare,
          .input_defaults = input_defaults};
}

}  // namespace

extern const WorkloadEntry kProgPython3Entry, kProgCc1Entry, kProgSqlite3Entry, kProgLuaEntry, kProgGhostscriptEntry, kProgRedisEntry,
    kProgXzEntry, kProgRocksdbEntry;
const WorkloadEntry kProgPython3Entry = program_entry<0>();
const WorkloadEntry kProgCc1Entry = program_entry<1>();
const WorkloadEntry kProgSqlite3Entry = program_entry<2>();
const WorkloadEntry kProgLuaEntry = program_entry<3>();
const WorkloadEntry kProgGhostscriptEntry = program_entry<4>();
const WorkloadEntry kProgRedisEntry = program_entry<5>();
const WorkloadEntry kProgXzEntry = program_entry<6>();
const WorkloadEntry kProgRocksdbEntry = program_entry<7>();

}  // namespace allocstress
