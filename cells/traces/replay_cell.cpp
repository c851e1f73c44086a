// Replay cells and their registry entry.  The measured phase replays each recorded thread of a
// trace's replay program (workloads/replay/) on a worker of its own; the record gives cycles per
// operation (and per "pair" of two operations, the unit the tables and the void-baseline
// subtraction use), peak RSS and overhead against the theoretical peak of the trace (peak live
// requested bytes in recorded order), and the allocstats series: one row every K operations of
// each thread, with the recorded live bytes, the RSS growth, the RSS-based overhead, the RSS
// maximum so far and the mean cycles per operation since the thread's previous row.
//
// With --heap-map N the record also carries a heap map (cells/traces/heap_map.hpp): the addresses the
// blocks live at N points of the trace had in this very replay, read from the slot table after
// the measured phase (the replay writes every block's address there anyway: the measured phase
// does no extra work).  Which blocks are live at each point is worked out with the program.
//
// The program is built from the trace before the cell runs (the entry's `prepare`: in the
// planner's process, or in a forked child of run/, so that decoding the trace never allocates
// through the allocator under test) and named in the cell's inputs.
#include "cells/workload_registry.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <cstring>
#include <optional>

#include "allocators/in_tree_registry.hpp"
#include "allocators/void_allocator.hpp"
#include "cells/cell_record.hpp"
#include "cells/traces/heap_map.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "workloads/replay/heap_map_frames.hpp"
#include "workloads/replay/replay_program.hpp"
#include "platform/memory/process_memory.hpp"

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
  ReplayThreadOutcome outcome;  // summed over the passes
  std::uint64_t passes = 0;     // 1, and a soak's rounds (replay loops)
  std::uint64_t start_tsc = 0;
  std::vector<ReplaySample> samples;
};

// Adds a pass's counts to `total`, and its failure when `total` has none yet.
void add_pass(ReplayThreadOutcome& total, const ReplayThreadOutcome& pass) {
  total.allocations += pass.allocations;
  total.frees += pass.frees;
  total.reallocations += pass.reallocations;
  total.waits += pass.waits;
  total.read_checksum += pass.read_checksum;
  if (total.failure.empty() && !pass.failure.empty()) {
    total.failure = pass.failure;
    total.failed_allocation_bytes = pass.failed_allocation_bytes;
  }
}

// One worker thread replaying one recorded thread on allocator A (contract: measured_phase.hpp).
// In a soak the workers replay the trace again and again (replay loops), all together.
template <Allocator A>
class ReplayWorker {
 public:
  static constexpr bool kSoakRoundsTogether = true;

  ReplayWorker(std::size_t index, const MappedReplayProgram& program, ReplayShared* shared, MemoryAccess access, const RssReader& rss)
      : index_(index), workers_(program.threads().size()), thread_(program.threads()[index]), max_block_(program.max_block_bytes()),
        shared_(*shared), access_(access), rss_(rss) {}

  std::string setup() {
    alloc_.emplace(std::size_t(max_block_));
    result.samples.reserve(thread_.samples.size());  // no allocation while sampling
    return "";
  }
  void run() {
    result.start_tsc = cycle_counter_begin();
    // A counts run counts the replay alone: no allocstats rows (reading /proc is no allocator work).
    result.outcome = counting_measured_phase()
                         ? run_replay_thread(*alloc_, thread_.ops, shared_, access_)
                         : run_replay_thread(*alloc_, thread_.ops, shared_, access_, AllocstatsSampler(thread_.samples, result.samples, rss_));
    result.passes = 1;
  }
  // A soak round: the next pass of the replay loop (replay_thread_again; the allocstats rows are the first pass's).
  // A replay already stopped (a worker's allocation failed) goes no further: every worker sees the
  // same flag here, after the round barrier, so all leave without entering the pass's barriers.
  bool soak_round() {
    if (shared_.stop.load()) return false;
    const ReplayThreadOutcome pass = replay_thread_again(*alloc_, thread_.ops, thread_.live_at_end, shared_, access_, index_, workers_);
    add_pass(result.outcome, pass);
    ++result.passes;
    return pass.failure.empty();
  }
  void inspect() {}
  void release() { release_replay_blocks(*alloc_, shared_, thread_.live_at_end); }

  ReplayWorkerResult result;

 private:
  std::size_t index_, workers_;
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

// The program a cell's inputs name.  Throws std::invalid_argument when it has none.
std::filesystem::path program_path(const nlohmann::json& inputs) {
  if (!inputs.is_object() || !inputs.contains("program"))
    throw std::invalid_argument("replay: the cell's inputs name no replay program (it is built from --trace before the cell runs)");
  return word_field(inputs, "program");
}

// The heap map of the replay just measured, or {"frames", "unavailable": why}.  pre: the measured
// phase is over; the slot table holds every produced block's address.
nlohmann::json replay_heap_map(const Cell& cell, const AllocatorSpec& allocator, const SlotTable& slots, const std::string& failure) {
  const unsigned frames = unsigned(cell.params.value("heap_map_frames", std::uint64_t{0}));
  auto unavailable = [&](const std::string& why) { return nlohmann::json{{"frames", frames}, {"unavailable", why}}; };
  if (allocator.name == VoidAllocator::name()) return unavailable("void hands out the same buffer again and again: its addresses are no heap");
  if (counting_measured_phase()) return unavailable("a counts cell counts instructions; the timing cells carry the heap map");
  if (!failure.empty()) return unavailable("the replay did not complete");
  if (!cell.inputs.is_object() || !cell.inputs.contains("heap_map"))
    return unavailable("the cell's inputs name no heap-map frames (they are built from --trace with --heap-map before the cell runs)");
  HeapMapFrames plan;
  try {
    plan = load_heap_map_frames(word_field(cell.inputs, "heap_map"));
  } catch (const std::exception& e) {
    return unavailable(e.what());
  }
  if (plan.op_index.size() != frames) return unavailable("the heap-map frames file has " + std::to_string(plan.op_index.size()) + " frames, not " + std::to_string(frames));
  std::vector<HeapMapBlockAt> blocks;
  blocks.reserve(plan.blocks.size());
  for (const HeapMapBlock& b : plan.blocks) {
    const auto address = reinterpret_cast<std::uintptr_t>(slots.blocks()[b.slot].load(std::memory_order_acquire));
    if (address == 0) return unavailable("block lifetime " + std::to_string(b.slot) + " has no address (the slot table does not match the frames)");
    blocks.push_back({std::uint64_t(address), b.size, b.first_frame, b.end_frame});
  }
  return heap_map_json(build_heap_map(blocks, frames), plan.op_index);
}

nlohmann::json run_replay_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus) {
  const MappedReplayProgram program(program_path(cell.inputs));
  const MemoryAccess access = parse_memory_access(word_field(cell.params, "memory_access"));
  const SlotTable slots(program.slots());
  ReplayShared shared;
  shared.blocks = slots.blocks();
  shared.keep_addresses = cell.params.value("heap_map_frames", std::uint64_t{0}) != 0;
  shared.slots = program.slots();
  std::barrier<> between_passes(std::ptrdiff_t(pus.size()));
  shared.between_passes = &between_passes;
  const RssReader rss;
  std::vector<ReplayWorkerResult> results(pus.size());
  const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<ReplayWorker<A>>(
        topology, pus, PhaseHooks{}, [&](std::size_t i, ReplayWorker<A>& w) { results[i] = std::move(w.result); }, program, &shared,
        access, rss);
  });

  ReplayThreadOutcome total;
  std::uint64_t cycles_total = 0, live_at_end = 0;
  std::string failure = setup_failure(m);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ReplayThreadOutcome& o = results[i].outcome;
    add_pass(total, o);
    cycles_total += m.workers[i].cycles;
    live_at_end += program.threads()[i].live_at_end.size();
    if (failure.empty() && !o.failure.empty()) failure = o.failure + " (worker " + std::to_string(i) + ")";
  }
  // Every pass replays the trace's operations; each pass after the first also frees the blocks
  // the one before left live (replay_thread_again).
  const nlohmann::json& stats = program.stats();
  const std::uint64_t passes = results.empty() ? 0 : results[0].passes;
  const std::uint64_t ops = total.allocations + total.frees + total.reallocations;
  const std::uint64_t planned_ops = passes * stats.at("ops").get<std::uint64_t>() + (passes > 0 ? passes - 1 : 0) * live_at_end;
  if (failure.empty() && ops != planned_ops)
    failure = "replayed " + std::to_string(ops) + " of " + std::to_string(planned_ops) + " operations";
  const std::uint64_t peak_live = stats.at("peak_live_requested_bytes").get<std::uint64_t>();

  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update(per_operation_timing(m, cycles_total, ops));
  rec.update({{"pair_means", "two operations of the trace (allocation, free or realloc), so that replay shares alloc-test's units"},
              {"mallocs", total.allocations},
              {"frees", total.frees},
              {"reallocs", total.reallocations},
              {"cross_thread_waits", total.waits},
              {"replay_passes", passes},
              {"peak_live_requested_bytes", peak_live},
              {"peak_live_means", "theoretical peak: the most live requested bytes at any point of the trace's recorded order"},
              {"end_live_requested_bytes", stats.at("end_live_requested_bytes")},
              {"read_checksum", hex64(total.read_checksum)},
              {"op_stream_hash", hex64(stats.at("program_digest").get<std::uint64_t>())},
              {"trace", stats},
              {"allocstats", allocstats_series(results, program.allocstats_every(), m.rss_before)}});
  rec.update(memory_overhead(m, peak_live, allocator));
  if (cell.params.value("heap_map_frames", std::uint64_t{0}) != 0) rec["heap_map"] = replay_heap_map(cell, allocator, slots, failure);
  if (pus.size() > topology.usable_pu_count(false))
    rec["warnings"].push_back("the trace has " + std::to_string(pus.size()) + " threads and this machine " +
                              std::to_string(topology.usable_pu_count(false)) +
                              " PUs: replay threads share PUs, and cross-thread waits yield to the producer");
  if (allocator.name == VoidAllocator::name() && program.max_block_bytes() > VoidBuffer::kPhysicalLimit)
    rec["warnings"].push_back("void maps the same " + std::to_string(VoidBuffer::kPhysicalLimit >> 20) + " MiB again and again to cover the largest request (" +
                              std::to_string(program.max_block_bytes() >> 20) + " MiB): its RSS figures count every mapping, its memory is " +
                              std::to_string(VoidBuffer::kPhysicalLimit >> 20) + " MiB per worker");
  if (!stats.value("trace_truncation", std::string()).empty())
    rec["warnings"].push_back("the trace was cut short (" + stats.at("trace_truncation").get<std::string>() + "): its complete blocks were replayed");
  return rec;
}

nlohmann::json prepare(const nlohmann::json& params, const std::filesystem::path& folder) {
  trace::TraceContents contents;
  try {
    contents = trace::read_trace(word_field(params, "trace"));
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  const std::uint64_t given = count_field(params, "allocstats_every");
  const unsigned frames = unsigned(params.value("heap_map_frames", std::uint64_t{0}));
  const std::filesystem::path program = folder / "replay-program.bin";
  const ReplayProgram built = build_replay_program(contents, given != 0 ? given : default_allocstats_every(contents.events()), frames != 0);
  save_replay_program(built, program);
  if (frames == 0) return {{"program", program.string()}};
  const std::filesystem::path heap_map = folder / "replay-program.heap-map.bin";
  save_heap_map_frames(heap_map_frames(built, frames), heap_map);
  return {{"program", program.string()}, {"heap_map", heap_map.string()}};
}

// Each recorded thread runs on a worker of its own: the program fixes the thread count.
InputDefaults input_defaults(const nlohmann::json&, const nlohmann::json& inputs) {
  if (!inputs.is_object() || !inputs.contains("program")) return {};
  return {unsigned(MappedReplayProgram(program_path(inputs)).threads().size()), true, std::nullopt};
}

void check(const nlohmann::json& params, unsigned) {
  word_field(params, "trace");
  parse_memory_access(word_field(params, "memory_access"));
  count_field(params, "allocstats_every");
  count_field(params, "seed");
  if (params.contains("heap_map_frames")) {  // cells written before --heap-map existed lack it: no heap map
    const std::uint64_t frames = count_field(params, "heap_map_frames");
    if (frames != 0 && (frames < kHeapMapMinFrames || frames > kHeapMapMaxFrames))
      throw std::invalid_argument("--heap-map " + std::to_string(frames) + " is out of range (accepted: " + std::to_string(kHeapMapMinFrames) +
                                  ".." + std::to_string(kHeapMapMaxFrames) + " frames, or 0 for no heap map)");
  }
}

std::string describe(const nlohmann::json& p) {
  return "trace " + word_field(p, "trace") + " (each recorded thread on its own worker), access " + word_field(p, "memory_access") +
         "; a pair = two operations of the trace" +
         (p.value("heap_map_frames", std::uint64_t{0}) != 0 ? "; heap map of " + std::to_string(p.at("heap_map_frames").get<std::uint64_t>()) + " frames" : "");
}

const WorkloadOption kTraceOption{"--trace", "trace", OptionKind::file, "replay: the trace file (allocstress trace, or allocstress import)",
                                  kTraceGroup, "FILE (a trace from `allocstress trace` or `allocstress import`)"};
const WorkloadOption kAllocstatsEveryOption{"--allocstats-every", "allocstats_every", OptionKind::count,
                                            "replay: an allocstats row every K operations of a thread (0: about 200 rows, K >= 10000)",
                                            kTraceGroup};
const WorkloadOption kHeapMapOption{"--heap-map", "heap_map_frames", OptionKind::count,
                                    "replay: a heap map of N frames (time x address: where the live blocks lay; accepted 2..1000, 0: none)",
                                    kTraceGroup};

}  // namespace

extern const WorkloadEntry kReplayEntry;
const WorkloadEntry kReplayEntry{
    .name = "replay",
    .family = "traces",
    .summary = "a program's own allocation stream (`allocstress trace`, or imported), replayed thread by thread",
    .options = {&kTraceOption, &kAccessOption, &kAllocstatsEveryOption, &kHeapMapOption, &kSeedOption},
    .metrics = pair_cost_metrics(),
    .defaults = [](const AllocTestParams& preset) {
      // The trace does not say what the program touched: one write per page of every block, so
      // that the RSS holds what the program was given (with none, allocators that reserve without
      // touching look leaner than the heap they handed out).
      return nlohmann::json{{"trace", nullptr}, {"memory_access", "touch"}, {"allocstats_every", 0}, {"heap_map_frames", 0}, {"seed", preset.seed}};
    },
    .check = check,
    .describe = describe,
    .run = run_replay_cell,
    .prepare = prepare,
    .input_defaults = input_defaults,
    .runs_alone = "its thread count is the trace's",
    .counts = true,
    .soaks = true,
};

}  // namespace allocstress
