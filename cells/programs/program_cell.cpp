// Real programs: the registry's one `program` entry.  Every program workload -- the prog-* ones
// of the shipped programs file, a user's file, `allocstress bench -- CMD` -- is an instance of it
// named by its definition (cells/programs/program_workloads.hpp), and its cells carry that definition in
// `params.program` (workloads/programs/program_definition.hpp).  A repetition runs the program once
// in a fresh process tree, a child of this cell process, which already runs under the drop-in
// allocator's LD_PRELOAD: the program inherits it.  Starting that process is the cells' one
// documented exception to "never forks" (cells/README.md); the spawning code itself is platform/'s.
//
// The record's figures come from wait4()'s rusage of the program and the descendants it waited
// for (gcc's cc1 and as): wall, user and system time, peak RSS (the largest process of the tree),
// faults and context switches; the probe library (platform/process/program_probe.hpp), preloaded beside
// the allocator, says which processes ran, where their malloc resolved and each one's own peak
// RSS; the definition's metrics are read from the output.  A server is measured from start to
// stop; its wall time is the client's load alone, and the client runs without the preload, so
// that only the server's allocator differs.
//
// The local backend (run/local_backend.cpp) hands a cell two instructions through its `inputs`
// (never through its parameters, which are its identity):
//   "verification": true   an unmeasured run with the counting probe before the measured ones:
//                          fails when the tree never called malloc;
//   "write_stdout_to": F   write the output (its first MiB) to F (system's verification run: the
//                          reference of the output check);
//   "expected_stdout": {"hash", "bytes", "file"}   the reference: a run whose output differs fails,
//                          with the first differing line of both.
//
// In the matrix a program cell is one thread: one program process tree (the program's own
// threads are its parameter `program_threads`, recorded).  Every program fixes 1 thread, so all
// program workloads share one matrix; a non-program workload in the same matrix runs at 1 thread too.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/cell_record.hpp"
#include "cells/params_json.hpp"
#include "cells/programs/program_runs.hpp"
#include "cells/workload_registry.hpp"
#include "platform/durable_files.hpp"
#include "platform/process/elf_linkage.hpp"
#include "platform/process/program_run.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kDropInOnly = "a real program can only run under a drop-in allocator (LD_PRELOAD)";

ProgramDefinition definition_of(const Json& params) {
  if (!params.is_object() || !params.contains("program"))
    throw std::invalid_argument("a program cell's parameters carry its definition in 'program' (name a program of a programs file, "
                                "or use allocstress bench -- CMD)");
  return program_definition_from_json(params.at("program"));
}

Json nullable(std::optional<double> v) { return v ? Json(*v) : Json(nullptr); }

// Under glibc's own malloc (`system` and its configurations: nothing preloaded) a program linked
// with an allocator of its own -- Debian's redis-server with libjemalloc -- would run that one,
// not glibc's: libc goes into LD_PRELOAD too, ahead of the program's libraries, so that the row
// named system measures glibc's malloc.  "" for a drop-in that is preloaded anyway.
std::string glibc_first(const std::string& watch) { return watch.empty() ? ":" + malloc_provider_path() : ""; }

// A program may change its user (a server dropping root: setpriv, runuser): its processes must
// still be able to append to the probe's log, so the log's folder is entered and the log written
// by anyone.  The folder lives only as long as the run.
void open_to_every_user(const fs::path& dir, const fs::path& log) {
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, ec);
  std::ofstream{log};
  fs::permissions(log, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write, ec);
}

// The first line where `a` and `b` differ, as "line N: system's '...', this run's '...'".
std::string first_difference(const std::string& reference, const std::string& mine) {
  std::istringstream a(reference), b(mine);
  std::string la, lb;
  for (std::size_t line = 1;; ++line) {
    const bool more_a = bool(std::getline(a, la)), more_b = bool(std::getline(b, lb));
    if (!more_a && !more_b) return "the difference lies beyond the first MiB";
    auto shown = [](bool more, const std::string& text) { return more ? "'" + text.substr(0, 160) + (text.size() > 160 ? "...'" : "'") : std::string("(end of output)"); };
    if (more_a != more_b || la != lb) return "first difference at line " + std::to_string(line) + ": system's " + shown(more_a, la) + ", this run's " + shown(more_b, lb);
  }
}

// "" when the run's output is the reference's, else why not (with a diff excerpt).
std::string output_check(const Json& expected, const ProgramOutcome& out) {
  const std::string want = expected.value("hash", std::string());
  if (want.empty() || hash_text(out.out_hash) == want) return "";
  std::string reference;
  if (const std::string file = expected.value("file", std::string()); !file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    reference = s.str();
  }
  return "the output differs from system's (" + std::to_string(out.out_bytes) + " bytes, " + hash_text(out.out_hash) + "; system's " +
         std::to_string(expected.value("bytes", std::uint64_t{0})) + " bytes, " + want + "): " + first_difference(reference, out.out);
}

Json run_program_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology&, const std::vector<unsigned>& pus) {
  const ProgramDefinition p = definition_of(cell.params);
  const std::string watch = required_preload(allocator);
  const bool verification = cell.inputs.value("verification", false);
  std::string failure = program_unavailable(p);
  std::vector<std::string> warnings;
  ProgramRunResult r;
  Json counts, preload_block = Json::object(), processes = Json::array();
  std::optional<std::uint64_t> tree_peak_kib;
  std::size_t process_count = 0;
  if (failure.empty() && cell.mode == CellMode::counts) {
    try {
      counts = count_program(p, cell.params, cell.inputs, allocator, 0, failure);
    } catch (const std::runtime_error& e) {
      failure = e.what();
    }
    r.command = shell_command_line(program_invocation(p, cell.params, cell.inputs).argv);
    r.measured = "the program once under callgrind (instructions and simulated misses of every process of its tree)";
  } else if (failure.empty()) {
    TemporaryFolder scratch;
    try {
      scratch.dir = make_temporary_folder("allocstress-probe-");
      const fs::path log = scratch.dir / "probe.log";
      open_to_every_user(scratch.dir, log);
      const EnvironmentChanges extra = {{"LD_PRELOAD", probe_library(verification).string() + glibc_first(watch)},
                                        {"ALLOCSTRESS_PROBE_LOG", log.string()},
                                        {"ALLOCSTRESS_PROBE_WATCH", watch}};
      r = run_program_once(p, cell.params, cell.inputs, extra, p.timeout_s);
      failure = r.failure;
      PreloadVerdict v = judge_preload(log, watch, verification);
      if (failure.empty()) failure = v.failure;
      warnings = v.warnings;
      preload_block = v.block;
      processes = preload_block.at("process_list");
      preload_block.erase("process_list");
      process_count = v.processes.size();
      for (const ProbedProcess& pp : v.processes)
        if (pp.peak_rss_kib) tree_peak_kib = tree_peak_kib.value_or(0) + *pp.peak_rss_kib;
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (failure.empty() && cell.inputs.contains("expected_stdout")) failure = output_check(cell.inputs.at("expected_stdout"), r.output());
    if (const std::string to = cell.inputs.value("write_stdout_to", std::string()); !to.empty() && failure.empty())
      write_file_atomically(to, r.output().out);
  }
  const ProgramOutcome& o = r.program;
  PhaseMeasurement m;
  m.wall_ns = std::uint64_t(o.wall_s * 1e9);
  m.peak_rss = o.max_rss_kib * 1024;
  m.usage.minor_faults = o.minor_faults;
  m.usage.major_faults = o.major_faults;
  m.usage.user_time_ns = std::uint64_t(o.user_s * 1e9);
  m.usage.system_time_ns = std::uint64_t(o.sys_s * 1e9);
  m.usage.voluntary_context_switches = o.voluntary_switches;
  m.usage.involuntary_context_switches = o.involuntary_switches;
  Json rec = base_record(cell, allocator, pus, m, failure);
  rec["peak_rss_source"] = "ru_maxrss of wait4(): the largest resident set of the program or any descendant it waited for";
  for (const char* field : {"rss_before_bytes", "rss_end_bytes", "rss_after_free_bytes", "tsc_hz", "cycle_counter", "observed_pus"}) rec.erase(field);
  for (const std::string& w : warnings) rec["warnings"].push_back(w);
  if (cell.mode == CellMode::counts)  // no timed phase: the counts are the figures (and the record says how they were run)
    for (auto it = rec["warnings"].begin(); it != rec["warnings"].end();) it = *it == kShortPhaseWarning ? rec["warnings"].erase(it) : it + 1;
  Json metrics = {{"wall_s", o.wall_s},
                  {"user_s", o.user_s},
                  {"sys_s", o.sys_s},
                  {"peak_rss_mib", double(o.max_rss_kib) / 1024.0},
                  {"tree_peak_rss_mib", tree_peak_kib ? Json(double(*tree_peak_kib) / 1024.0) : Json(nullptr)},
                  {"minor_faults", o.minor_faults},
                  {"major_faults", o.major_faults},
                  {"context_switches", o.voluntary_switches + o.involuntary_switches},
                  {"processes", process_count > 0 ? Json(process_count) : Json(nullptr)},
                  {"throughput", nullptr}};
  Json units = Json::object();
  for (const ProgramMetric& metric : p.metrics) {
    const ProgramOutcome& out = r.output();
    const std::optional<double> value = failure.empty() ? read_program_metric(metric, metric.stream == "stderr" ? out.err : out.out) : std::nullopt;
    metrics[metric.name] = nullable(value);
    units[metric.name] = metric.unit.empty() ? Json(nullptr) : Json(metric.unit);
    if (failure.empty() && !value && cell.mode != CellMode::counts)
      rec["warnings"].push_back("metric " + metric.name + ": '" + metric.regex + "' matched no number in the " +
                                (p.drive == ProgramDrive::server ? "client's " : "program's ") + metric.stream);
  }
  rec["workload_metrics"] = metrics;
  if (!counts.is_null()) {
    rec["simulation_command"] = counts.at("command");
    rec["counts"] = counts;
  }
  const std::string binary = program_binary(p.command.front());
  Json program = {{"name", p.name},
                  {"origin", p.origin},
                  {"binary", binary.empty() ? Json(nullptr) : Json(binary)},
                  {"package", p.package.empty() ? Json(nullptr) : Json(p.package)},
                  {"package_version", binary.empty() || p.package.empty() ? Json(nullptr) : Json(debian_package_version(p.package))},
                  {"command", r.command},
                  {"working_directory", r.working_directory},
                  {"program_threads", cell.params.at("program_threads")},
                  {"work", program_work_text(p, cell.params)},
                  {"drive", p.drive == ProgramDrive::server ? "server" : "run"},
                  {"exit_code", o.end == ChildOutcome::End::exited ? Json(o.exit_code) : Json(nullptr)},
                  {"signal", o.end == ChildOutcome::End::signaled ? Json(o.signal) : Json(nullptr)},
                  {"stdout_hash", hash_text(r.output().out_hash)},
                  {"stdout_bytes", r.output().out_bytes},
                  {"stderr_tail", failure.empty() ? Json(nullptr) : Json(r.program.stderr_tail())},
                  {"output_checked", cell.inputs.contains("expected_stdout")},
                  {"verification_run", verification},
                  {"metric_units", units},
                  {"throughput_unit", units.contains("throughput") ? units.at("throughput") : Json(nullptr)},
                  {"measured", r.measured},
                  {"preload", preload_block},
                  {"processes", processes}};
  if (p.drive == ProgramDrive::server) {
    program["client"] = r.client_command;
    if (r.client && !r.client->succeeded()) program["client_stderr_tail"] = r.client->stderr_tail();
  }
  rec["program"] = std::move(program);
  return rec;
}

// --- parameters -------------------------------------------------------------------------------

void check(const Json& params, unsigned threads) {
  const ProgramDefinition p = definition_of(params);
  check_program_definition(p, p.name);
  const std::uint64_t work = count_field(params, "work");
  if (work < 1 || work > 10000)
    throw std::invalid_argument(p.name + ": --prog-work must be a percentage of the default work in 1..10000, got " + std::to_string(work));
  const std::uint64_t t = count_field(params, "program_threads");
  if (t < 1 || t > 64) throw std::invalid_argument(p.name + ": --prog-threads must be 1..64, got " + std::to_string(t));
  if (!p.takes_threads && t != p.threads)
    throw std::invalid_argument(p.name + " does not take --prog-threads (its definition says threads = " + std::to_string(p.threads) +
                                " and no takes_threads)");
  count_field(params, "seed");
  if (threads != 1)
    throw std::invalid_argument(p.name + " runs one program process per cell: 1 thread in the matrix, got " + std::to_string(threads) +
                                (p.takes_threads ? " (the program's own threads: --prog-threads)" : ""));
}

std::string describe(const Json& params) {
  const ProgramDefinition p = definition_of(params);
  const std::string work = program_work_text(p, params);
  return (p.summary.empty() ? shell_command_line(p.command) : p.summary) + (work.empty() ? "" : "; " + work) + "; seed " + params.at("seed").dump();
}

// Writes the generated input unless the same file is there already; a file of the entry's own
// is used where it lies.
Json prepare(const Json& params, const fs::path& folder) {
  const ProgramDefinition p = definition_of(params);
  Json inputs = {{"folder", fs::absolute(folder).string()}};
  if (p.input_generator.empty()) {
    if (!p.input_file.empty()) inputs["input"] = p.input_file;
    return inputs;
  }
  const InputGenerator* g = find_input_generator(p.input_generator);
  if (g == nullptr) throw std::invalid_argument(p.name + ": unknown input generator '" + p.input_generator + "'");
  const std::uint64_t seed = count_field(params, "seed");
  const unsigned work = unsigned(count_field(params, "work"));
  const fs::path file = fs::absolute(folder) / (p.name + "-" + std::to_string(seed) + "-" + std::to_string(work) + "-" + p.input_file);
  const std::string text = g->make(seed, work);
  std::error_code ec;
  if (fs::file_size(file, ec) != text.size() || ec) write_file_atomically(file, text);
  inputs["input"] = file.string();
  return inputs;
}

InputDefaults input_defaults(const Json&, const Json&) {
  return {.threads = 1u, .threads_fixed = true, .seed = std::nullopt,
          .threads_reason = "a program cell is one program process (its own threads: --prog-threads)"};
}

std::string refusal(const AllocatorSpec& allocator, const Json& params, unsigned) {
  if (allocator.kind != AllocatorKind::drop_in) return kDropInOnly;
  const ProgramDefinition p = definition_of(params);
  if (std::string why = program_unavailable(p); !why.empty()) return why;
  return preload_unreachable_reason(program_binary(p.command.front()));
}

// --- options and metrics ----------------------------------------------------------------------

const WorkloadOption kProgWorkOption{"--prog-work", "work", OptionKind::count,
                                     "Programs: the program's work as a percentage of its default ({work:N} in its command; 100)", kProgramGroup};
const WorkloadOption kProgThreadsOption{"--prog-threads", "program_threads", OptionKind::count,
                                        "Programs that take threads (prog-xz, prog-rocksdb): the program's own threads ({threads})", kProgramGroup};

constexpr Metric kWallS{.name = "wall_s", .place = MetricPlace::workload_metrics, .unit = "s", .label = "wall s", .decimals = 3,
                        .definition = "Wall time of one run of the program, fork to exit (a server: its client's bounded load): the "
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
constexpr Metric kTreePeakRssMib{.name = "tree_peak_rss_mib", .place = MetricPlace::workload_metrics, .unit = "MiB",
                                 .label = "tree peak RSS MiB", .decimals = 1,
                                 .definition = "The peak resident sets of every process of the program's tree added up (each process's "
                                 "VmHWM as the probe read it at its exit): an upper bound of what the whole tree held at any one "
                                 "moment; null when no process exited through exit().",
                                 .in_table = true};
constexpr Metric kMinorFaults{.name = "minor_faults", .place = MetricPlace::workload_metrics, .unit = "count", .label = "minor faults",
                              .decimals = 0, .definition = "Minor page faults of the program and its waited-for descendants (wait4 rusage).",
                              .in_table = true};
constexpr Metric kMajorFaults{.name = "major_faults", .place = MetricPlace::workload_metrics, .unit = "count", .label = "major faults",
                              .decimals = 0, .definition = "Major page faults (disk reads) of the program and its waited-for descendants."};
constexpr Metric kContextSwitches{.name = "context_switches", .place = MetricPlace::workload_metrics, .unit = "count",
                                  .label = "ctx switches", .decimals = 0,
                                  .definition = "Voluntary and involuntary context switches of the program and its waited-for "
                                  "descendants (wait4 rusage ru_nvcsw + ru_nivcsw).",
                                  .in_table = true};
constexpr Metric kProcesses{.name = "processes", .place = MetricPlace::workload_metrics, .unit = "count", .label = "processes",
                            .decimals = 0,
                            .definition = "Processes of the program's tree the probe saw (each exec and each fork without exec); null "
                            "when none reported."};
constexpr Metric kThroughput{.name = "throughput", .place = MetricPlace::workload_metrics, .unit = "ops/s", .label = "throughput",
                             .decimals = 0,
                             .definition = "The program's own rate where its definition reads one under this name (prog-redis: "
                             "redis-benchmark's requests/s, prog-rocksdb: db_bench's ops/s; the harmonic mean over its tests), "
                             "else null.  A definition's other metrics sit beside it in workload_metrics under their own names.",
                             .in_table = true};

Json defaults(const AllocTestParams& preset) { return {{"work", 100}, {"program_threads", 1}, {"seed", preset.seed}}; }

}  // namespace

extern const WorkloadEntry kProgramEntry;
const WorkloadEntry kProgramEntry = {
    .name = "program",
    .family = "programs",
    .summary = "a real program run as its definition says (a programs file entry, or allocstress bench -- CMD), named by it",
    .void_baseline = false,
    .void_refusal = "a real program cannot run on void (it never frees); its figures are the program's own, no baseline is subtracted",
    .table = TableKind::program,
    .options = {&kProgWorkOption, &kProgThreadsOption, &kSeedOption},
    .metrics = {&kWallS, &kUserS, &kSysS, &kPeakRssMib, &kTreePeakRssMib, &kMinorFaults, &kMajorFaults, &kContextSwitches, &kProcesses,
                &kThroughput},
    .defaults = defaults,
    .check = check,
    .describe = describe,
    .run = run_program_cell,
    .refusal = refusal,
    .prepare = prepare,
    .input_defaults = input_defaults,
    .counts = true,
    .counts_in_cell = true};

}  // namespace allocstress
