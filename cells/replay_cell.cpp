// Replay cells: the program, the worker threads and the record (see replay_cell.hpp).
#include "cells/replay_cell.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "allocators/in_tree_registry.hpp"
#include "cells/cell_record.hpp"
#include "platform/child_process.hpp"
#include "platform/process_memory.hpp"

namespace allocstress {

namespace {

// Takes the allocstats rows of one thread at its sample points: TSC and RSS, nothing allocated.
class AllocstatsSampler {
 public:
  AllocstatsSampler(std::span<const ReplaySamplePoint> points, std::vector<ReplaySample>& out, const RssReader& rss)
      : points_(points), out_(out), rss_(rss) {}
  void after(std::size_t i) {
    if (next_ < points_.size() && points_[next_].local_index == i) [[unlikely]]
      take();
  }

 private:
  void take() {
    out_.push_back({points_[next_], cycle_counter_end(), rss_.read()});
    ++next_;
  }
  std::span<const ReplaySamplePoint> points_;
  std::vector<ReplaySample>& out_;
  const RssReader& rss_;
  std::size_t next_ = 0;
};

struct ReplayWorkerResult {
  ReplayThreadOutcome outcome;
  std::uint64_t start_tsc = 0;
  std::vector<ReplaySample> samples;
};

// One worker thread replaying one recorded thread on allocator A (contract: measured_phase.hpp).
template <Allocator A>
class ReplayWorker {
 public:
  ReplayWorker(std::size_t index, const MappedReplayProgram& program, ReplayShared* shared, MemoryAccess access, const RssReader& rss)
      : thread_(program.threads()[index]), max_block_(program.max_block_bytes()), shared_(*shared), access_(access), rss_(rss) {}

  std::string setup() {
    alloc_.emplace(std::size_t(max_block_));
    result.samples.reserve(thread_.samples.size());  // no allocation while sampling
    return "";
  }
  void run() {
    result.start_tsc = cycle_counter_begin();
    result.outcome = run_replay_thread(*alloc_, thread_.ops, shared_, access_, AllocstatsSampler(thread_.samples, result.samples, rss_));
  }
  void inspect() {}
  void release() { release_replay_blocks(*alloc_, shared_, thread_.live_at_end); }

  ReplayWorkerResult result;

 private:
  const MappedReplayProgram::Thread& thread_;
  std::uint64_t max_block_;
  ReplayShared& shared_;
  MemoryAccess access_;
  const RssReader& rss_;
  std::optional<A> alloc_;
};

// The allocstats series: rows of every thread in recorded order (see replay_cell.hpp).
nlohmann::json allocstats_series(const std::vector<ReplayWorkerResult>& results, std::uint64_t every, std::uint64_t rss_before) {
  struct Row {
    const ReplaySample* sample;
    double op_cycles;
  };
  std::vector<Row> rows;
  for (const auto& r : results) {
    std::uint64_t prev_tsc = r.start_tsc, prev_index = 0;
    bool first = true;
    for (const ReplaySample& s : r.samples) {
      const std::uint64_t ops = s.point.local_index + 1 - (first ? 0 : prev_index + 1);
      rows.push_back({&s, ops > 0 ? double(s.tsc - prev_tsc) / double(ops) : 0.0});
      prev_tsc = s.tsc;
      prev_index = s.point.local_index;
      first = false;
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.sample->point.global_index < b.sample->point.global_index; });
  nlohmann::json out = nlohmann::json::array();
  std::int64_t maxmem = 0;
  for (const Row& row : rows) {
    const ReplaySample& s = *row.sample;
    const std::int64_t rss = s.rss_bytes > 0 ? std::int64_t(s.rss_bytes) - std::int64_t(rss_before) : 0;
    maxmem = std::max(maxmem, rss);
    out.push_back({s.point.global_index, s.point.used_bytes, rss, rss - std::int64_t(s.point.used_bytes), maxmem, row.op_cycles});
  }
  return {{"every", every},
          {"columns", {"op_index", "used_bytes", "rss_bytes", "overhead_bytes", "maxmem_bytes", "op_cycles"}},
          {"rows", out},
          {"means", "op_index: operation in the trace's recorded order; used_bytes: live requested bytes there (recorded order); "
                    "rss_bytes: RSS growth since the measured phase began; overhead_bytes = rss_bytes - used_bytes; maxmem_bytes: "
                    "largest rss_bytes so far; op_cycles: mean TSC ticks per operation of that thread since its previous row"}};
}

// Anonymous zeroed memory for the slot table: not from the allocator under test.
class SlotTable {
 public:
  explicit SlotTable(std::uint32_t slots) : bytes_(std::max<std::size_t>(std::size_t(slots) * sizeof(std::atomic<void*>), 1)) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map the replay's slot table: ") + std::strerror(errno));
    blocks_ = static_cast<std::atomic<void*>*>(p);
  }
  ~SlotTable() { ::munmap(blocks_, bytes_); }
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;
  std::atomic<void*>* blocks() const { return blocks_; }

 private:
  std::size_t bytes_;
  std::atomic<void*>* blocks_;
};

}  // namespace

void build_replay_program_file(const std::filesystem::path& trace, std::uint64_t allocstats_every, const std::filesystem::path& program_path) {
  trace::TraceContents contents;
  try {
    contents = trace::read_trace(trace);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  const std::uint64_t every = allocstats_every != 0 ? allocstats_every : default_allocstats_every(contents.events());
  const ReplayProgram program = build_replay_program(contents, every);
  save_replay_program(program, program_path);
}

std::unique_ptr<MappedReplayProgram> obtain_replay_program(const ReplaySpec& spec) {
  std::error_code ec;
  if (!spec.program.empty() && std::filesystem::exists(spec.program, ec)) return std::make_unique<MappedReplayProgram>(spec.program);
  const std::filesystem::path dir = make_temporary_folder("allocstress-replay-"), file = dir / "program.bin";
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {  // the child decodes and builds; its heap is its own
    ::close(fds[0]);
    std::string error;
    try {
      build_replay_program_file(spec.trace, spec.allocstats_every, file);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      [[maybe_unused]] const ssize_t written = ::write(fds[1], error.data(), error.size());  // the parent reports it
    }
    ::_exit(error.empty() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;)
    if (n > 0) message.append(buf, std::size_t(n));
    else if (errno != EINTR) break;
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::filesystem::remove_all(dir, ec);
    throw std::invalid_argument(message.empty() ? "building the replay program of " + spec.trace + " failed" : message);
  }
  auto program = std::make_unique<MappedReplayProgram>(file);
  std::filesystem::remove_all(dir, ec);  // the mapping stays valid
  return program;
}

nlohmann::json run_replay_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus,
                               const MappedReplayProgram& program) {
  const SlotTable slots(program.slots());
  ReplayShared shared;
  shared.blocks = slots.blocks();
  const RssReader rss;
  std::vector<ReplayWorkerResult> results(pus.size());
  const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<ReplayWorker<A>>(
        topology, pus, PhaseHooks{}, [&](std::size_t i, ReplayWorker<A>& w) { results[i] = std::move(w.result); }, program, &shared,
        cell.replay.access, rss);
  });

  ReplayThreadOutcome total;
  std::uint64_t cycles_total = 0;
  std::string failure = setup_failure(m);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ReplayThreadOutcome& o = results[i].outcome;
    total.allocations += o.allocations;
    total.frees += o.frees;
    total.reallocations += o.reallocations;
    total.waits += o.waits;
    total.read_checksum += o.read_checksum;
    cycles_total += m.workers[i].cycles;
    if (failure.empty() && !o.failure.empty()) failure = o.failure + " (worker " + std::to_string(i) + ")";
  }
  const nlohmann::json& stats = program.stats();
  const std::uint64_t ops = total.allocations + total.frees + total.reallocations;
  if (failure.empty() && ops != stats.at("ops").get<std::uint64_t>())
    failure = "replayed " + std::to_string(ops) + " of " + std::to_string(stats.at("ops").get<std::uint64_t>()) + " operations";
  const std::uint64_t peak_live = stats.at("peak_live_requested_bytes").get<std::uint64_t>();

  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update(per_operation_timing(m, cycles_total, ops));
  rec.update({{"pair_means", "two operations of the trace (allocation, free or realloc), so that replay shares alloc-test's units"},
              {"mallocs", total.allocations},
              {"frees", total.frees},
              {"reallocs", total.reallocations},
              {"cross_thread_waits", total.waits},
              {"peak_live_requested_bytes", peak_live},
              {"peak_live_means", "theoretical peak: the most live requested bytes at any point of the trace's recorded order"},
              {"end_live_requested_bytes", stats.at("end_live_requested_bytes")},
              {"overhead_ratio", nullable_ratio(double(m.peak_rss) - double(m.rss_before), double(peak_live))},
              {"read_checksum", hex64(total.read_checksum)},
              {"op_stream_hash", hex64(stats.at("program_digest").get<std::uint64_t>())},
              {"trace", stats},
              {"allocstats", allocstats_series(results, program.allocstats_every(), m.rss_before)}});
  if (pus.size() > topology.usable_pu_count(false))
    rec["warnings"].push_back("the trace has " + std::to_string(pus.size()) + " threads and this machine " +
                              std::to_string(topology.usable_pu_count(false)) +
                              " PUs: replay threads share PUs, and cross-thread waits yield to the producer");
  if (!stats.value("trace_truncation", std::string()).empty())
    rec["warnings"].push_back("the trace was cut short (" + stats.at("trace_truncation").get<std::string>() + "): its complete blocks were replayed");
  return rec;
}

}  // namespace allocstress
