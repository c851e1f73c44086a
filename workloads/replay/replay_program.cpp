// Trace -> replay program, and its file form (see replay_program.hpp).
#include "workloads/replay/replay_program.hpp"

#include "trace/block_lifetimes.hpp"
#include "trace/recorded_order.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "platform/durable_files.hpp"

namespace allocstress {

namespace {

using trace::OpClass;
using trace::TraceEvent;
using trace::TraceOp;

constexpr char kProgramMagic[8] = {'A', 'S', 'R', 'E', 'P', 'L', 'Y', '1'};
constexpr std::uint64_t kPageSize = 4096;
constexpr unsigned kMaxAlignLog2 = 40;  // larger alignments are rounded down to it (align_log2_of)

// The replay alignment of a block started by `b` (0: the default alignment; realloc: always 0).
std::uint8_t align_log2_of(const trace::LiveBlock& b) {
  std::uint64_t a = b.alignment;
  if ((b.op == TraceOp::valloc || b.op == TraceOp::pvalloc) && a == 0) a = kPageSize;
  unsigned log2 = 0;
  while ((std::uint64_t{1} << log2) < a && log2 < kMaxAlignLog2) ++log2;  // a non-power of two rounds up
  return std::uint8_t(log2 > replay_detail::kDefaultAlignLog2 ? log2 : 0);
}

std::uint64_t at_least_one(std::uint64_t size) { return size == 0 ? 1 : size; }

class Builder {
 public:
  Builder(const trace::TraceContents& trace, std::uint64_t every, bool slot_spans) : trace_(trace), every_(every), slot_spans_(slot_spans) {
    program_.threads.resize(trace.threads.size());
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
      program_.threads[t].trace_thread = trace.threads[t].index;
      program_.threads[t].tid = trace.threads[t].tid;
    }
    program_.allocstats_every = every;
  }

  ReplayProgram build() {
    trace::for_each_in_recorded_order(trace_, [&](std::size_t t, const TraceEvent& e) { convert(std::uint32_t(t), e); });
    finish();
    return std::move(program_);
  }

 private:
  void count(const char* what) { counts_[what] += 1; }

  void emit(std::uint32_t t, const ReplayOp& op) {
    ReplayThreadProgram& p = program_.threads[t];
    p.ops.push_back(op);
    switch (op.kind) {
      case ReplayOpKind::free: live_bytes_ -= op.size; break;
      case ReplayOpKind::reallocate: live_bytes_ += op.size - op.old_size; break;
      default: live_bytes_ += op.size; break;
    }
    peak_ = std::max(peak_, live_bytes_);
    if (slot_spans_) span(op);
    if (op.wait) count("cross_thread_consumes");
    if (every_ != 0 && p.ops.size() % every_ == 0) p.samples.push_back({p.ops.size() - 1, ops_, live_bytes_});
    ++ops_;
  }

  // The merged-order index of the op that produces and of the op that consumes each slot.
  void span(const ReplayOp& op) {
    std::vector<ReplaySlotSpan>& spans = program_.slot_spans;
    if (op.kind == ReplayOpKind::free) {
      spans[op.slot].consumed_at = ops_;
      return;
    }
    if (op.kind == ReplayOpKind::reallocate) spans[op.old_slot].consumed_at = ops_;
    if (spans.size() <= op.slot) spans.resize(std::size_t(op.slot) + 1);
    spans[op.slot].produced_at = ops_;
    spans[op.slot].size = op.size;
  }

  // Ends `b`'s lifetime with a free by thread t.
  void free_block(std::uint32_t t, const trace::LiveBlock& b) {
    ReplayOp op{};
    op.kind = ReplayOpKind::free;
    op.size = at_least_one(b.size);
    op.slot = std::uint32_t(b.block);
    op.wait = b.thread != t;
    op.align_log2 = align_log2_of(b);
    emit(t, op);
  }

  // The slot of the block `s` started (slots are the matcher's block numbers), after the free the
  // trace missed of a block lost at its address.
  std::uint32_t start(std::uint32_t t, const trace::BlockStep& s, std::uint8_t align_log2) {
    if (s.lost) {
      count("implicit_frees");
      free_block(t, *s.lost);
    }
    if (s.started->block >= UINT32_MAX) throw std::invalid_argument("trace has more than 2^32 - 1 block lifetimes: too many to replay");
    program_.slots = std::uint32_t(s.started->block + 1);
    max_block_ = std::max(max_block_, at_least_one(s.started->size) + (align_log2 ? std::uint64_t{1} << align_log2 : 0));
    return std::uint32_t(s.started->block);
  }

  void allocation(std::uint32_t t, const trace::BlockStep& s, ReplayOpKind kind) {
    const std::uint8_t align = align_log2_of(*s.started);
    ReplayOp op{};
    op.slot = start(t, s, align);
    op.kind = kind;
    op.size = at_least_one(s.started->size);
    op.align_log2 = align;
    if (align != 0) count("aligned_allocations");
    emit(t, op);
  }

  // The blocks come from trace::BlockMatcher (the one matching rule); the counts are the replay's
  // own: a realloc whose old block is not live is counted in unmatched_reallocs also when it
  // failed, and failed_allocations_in_trace counts every allocation or realloc that returned
  // NULL without ending a block (realloc(NULL, 0) included).
  void convert(std::uint32_t t, const TraceEvent& e) {
    ops_by_kind_[trace::op_name(e.op)] += 1;
    const trace::BlockStep s = matcher_.step(t, e);
    switch (trace::op_class(e.op)) {
      case OpClass::allocation:
        if (!s.started) return count("failed_allocations_in_trace");
        return allocation(t, s, e.op == TraceOp::calloc ? ReplayOpKind::allocate_zeroed : ReplayOpKind::allocate);
      case OpClass::free:
        if (s.null_free) return count("null_frees");
        if (!s.ended) return count("unmatched_frees");
        return free_block(t, *s.ended);
      case OpClass::realloc: break;
    }
    if (s.unknown_address) count("unmatched_reallocs");
    if (!s.started) {
      if (s.ended) return free_block(t, *s.ended);  // realloc(p, 0) that freed p
      return count("failed_allocations_in_trace");  // the old block (if any) stays live
    }
    if (!s.ended) return allocation(t, s, ReplayOpKind::allocate);  // realloc(NULL, n), or of an unknown address
    ReplayOp op{};
    op.slot = start(t, s, 0);
    op.kind = ReplayOpKind::reallocate;
    op.size = at_least_one(s.started->size);
    op.old_size = at_least_one(s.ended->size);
    op.old_slot = std::uint32_t(s.ended->block);
    op.wait = s.ended->thread != t;
    op.old_align_log2 = align_log2_of(*s.ended);
    emit(t, op);
  }

  void finish() {
    for (const auto& [address, b] : matcher_.live()) {
      ReplayLiveBlock l{};
      l.size = at_least_one(b.size);
      l.slot = std::uint32_t(b.block);
      l.align_log2 = align_log2_of(b);
      program_.threads[b.thread].live_at_end.push_back(l);
    }
    const std::size_t trace_threads = program_.threads.size();
    std::erase_if(program_.threads, [](const ReplayThreadProgram& p) { return p.ops.empty(); });
    if (program_.threads.empty() || ops_ == 0) throw std::invalid_argument("the trace has no operation to replay (" + std::to_string(matcher_.events()) + " events)");
    program_.max_block_bytes = max_block_;
    nlohmann::json stats = {{"trace_events", matcher_.events()}, {"ops", ops_}, {"slots", program_.slots},
                            {"threads", program_.threads.size()}, {"trace_threads", trace_threads},
                            {"peak_live_requested_bytes", peak_}, {"end_live_requested_bytes", live_bytes_},
                            {"live_at_end", matcher_.live().size()}, {"ops_by_kind", ops_by_kind_},
                            {"trace_truncation", trace_.truncation}, {"trace_tsc_hz", trace_.tsc_hz}};
    for (const char* c : {"unmatched_frees", "unmatched_reallocs", "null_frees", "failed_allocations_in_trace", "implicit_frees",
                          "cross_thread_consumes", "aligned_allocations"})
      stats[c] = counts_[c];
    std::uint64_t allocations = 0, frees = 0, reallocations = 0, zeroed = 0;
    std::uint64_t digest = 0xcbf29ce484222325ULL;  // FNV-1a over every op, thread by thread: the stream's identity
    for (const auto& p : program_.threads)
      for (const ReplayOp& op : p.ops) {
        unsigned char bytes[sizeof op];
        std::memcpy(bytes, &op, sizeof op);
        for (unsigned char b : bytes) digest = (digest ^ b) * 0x100000001b3ULL;
        allocations += op.kind == ReplayOpKind::allocate || op.kind == ReplayOpKind::allocate_zeroed;
        zeroed += op.kind == ReplayOpKind::allocate_zeroed;
        frees += op.kind == ReplayOpKind::free;
        reallocations += op.kind == ReplayOpKind::reallocate;
      }
    stats["allocations"] = allocations;
    stats["zeroed_allocations"] = zeroed;
    stats["frees"] = frees;
    stats["reallocations"] = reallocations;
    stats["program_digest"] = digest;
    program_.stats = std::move(stats);
  }

  const trace::TraceContents& trace_;
  std::uint64_t every_;
  bool slot_spans_;
  ReplayProgram program_;
  trace::BlockMatcher matcher_;
  std::map<std::string, std::uint64_t> counts_, ops_by_kind_;
  std::uint64_t ops_ = 0, live_bytes_ = 0, peak_ = 0, max_block_ = 1;
};

// --- file form -------------------------------------------------------------------------------

struct FileHeader {
  char magic[8];
  std::uint32_t threads, slots;
  std::uint64_t max_block_bytes, allocstats_every, stats_bytes, total_bytes;
};

struct ThreadHeader {
  std::uint32_t trace_thread, tid;
  std::uint64_t ops, samples, live, ops_offset, samples_offset, live_offset;
};

std::uint64_t align64(std::uint64_t v) { return (v + 63) / 64 * 64; }

}  // namespace

ReplayProgram build_replay_program(const trace::TraceContents& trace, std::uint64_t allocstats_every, bool slot_spans) {
  return Builder(trace, allocstats_every, slot_spans).build();
}

std::uint64_t default_allocstats_every(std::uint64_t ops) { return std::max<std::uint64_t>(10000, ops / 200); }

void save_replay_program(const ReplayProgram& program, const std::filesystem::path& path) {
  const std::string stats = program.stats.dump();
  std::vector<ThreadHeader> heads(program.threads.size());
  std::uint64_t at = align64(sizeof(FileHeader) + heads.size() * sizeof(ThreadHeader) + stats.size());
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const ReplayThreadProgram& t = program.threads[i];
    ThreadHeader& h = heads[i];
    h = {t.trace_thread, t.tid, t.ops.size(), t.samples.size(), t.live_at_end.size(), 0, 0, 0};
    h.ops_offset = at;
    at = align64(at + t.ops.size() * sizeof(ReplayOp));
    h.samples_offset = at;
    at = align64(at + t.samples.size() * sizeof(ReplaySamplePoint));
    h.live_offset = at;
    at = align64(at + t.live_at_end.size() * sizeof(ReplayLiveBlock));
  }
  FileHeader fh{};
  std::memcpy(fh.magic, kProgramMagic, sizeof fh.magic);
  fh = {{}, std::uint32_t(heads.size()), program.slots, program.max_block_bytes, program.allocstats_every, stats.size(), at};
  std::memcpy(fh.magic, kProgramMagic, sizeof fh.magic);

  write_through_partial(path, "the replay program", [&](std::ostream& out) {
    auto put = [&](const void* data, std::uint64_t n) { out.write(static_cast<const char*>(data), std::streamsize(n)); };
    auto pad_to = [&](std::uint64_t offset) {
      static const char zeros[64] = {};
      const auto now = std::uint64_t(out.tellp());
      if (offset > now) put(zeros, offset - now);
    };
    put(&fh, sizeof fh);
    put(heads.data(), heads.size() * sizeof(ThreadHeader));
    put(stats.data(), stats.size());
    for (std::size_t i = 0; i < heads.size(); ++i) {
      const ReplayThreadProgram& t = program.threads[i];
      pad_to(heads[i].ops_offset);
      put(t.ops.data(), t.ops.size() * sizeof(ReplayOp));
      pad_to(heads[i].samples_offset);
      put(t.samples.data(), t.samples.size() * sizeof(ReplaySamplePoint));
      pad_to(heads[i].live_offset);
      put(t.live_at_end.data(), t.live_at_end.size() * sizeof(ReplayLiveBlock));
    }
    pad_to(at);
  });
}

MappedReplayProgram::MappedReplayProgram(const std::filesystem::path& path) {
  const std::string name = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(name + ": cannot open replay program (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || std::uint64_t(st.st_size) < sizeof(FileHeader)) {
    ::close(fd);
    throw std::runtime_error(name + ": not a replay program (too short)");
  }
  bytes_ = std::size_t(st.st_size);
  map_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::runtime_error(name + ": cannot map replay program (" + std::strerror(errno) + ")");
  }
  const auto* base = static_cast<const unsigned char*>(map_);
  FileHeader fh;
  std::memcpy(&fh, base, sizeof fh);
  auto bad = [&](const std::string& why) {
    ::munmap(map_, bytes_);
    map_ = nullptr;
    return std::runtime_error(name + ": not a valid replay program (" + why + ")");
  };
  if (std::memcmp(fh.magic, kProgramMagic, sizeof kProgramMagic) != 0) throw bad("magic");
  // (stats_bytes compared on its own first: found by fuzzing, a huge one wrapped the sum around and
  // the statistics were parsed from beyond the mapping)
  if (fh.total_bytes != bytes_ || fh.stats_bytes > bytes_ ||
      sizeof(FileHeader) + std::uint64_t(fh.threads) * sizeof(ThreadHeader) > bytes_ - fh.stats_bytes)
    throw bad("size");
  slots_ = fh.slots;
  max_block_bytes_ = fh.max_block_bytes;
  allocstats_every_ = fh.allocstats_every;
  const auto* heads = reinterpret_cast<const ThreadHeader*>(base + sizeof(FileHeader));
  const char* stats = reinterpret_cast<const char*>(heads + fh.threads);
  stats_ = nlohmann::json::parse(stats, stats + fh.stats_bytes, nullptr, false);
  if (stats_.is_discarded()) throw bad("statistics");
  for (std::uint32_t i = 0; i < fh.threads; ++i) {
    const ThreadHeader& h = heads[i];
    auto inside = [&](std::uint64_t offset, std::uint64_t count, std::uint64_t size) {
      return offset <= bytes_ && count <= (bytes_ - offset) / size;
    };
    if (!inside(h.ops_offset, h.ops, sizeof(ReplayOp)) || !inside(h.samples_offset, h.samples, sizeof(ReplaySamplePoint)) ||
        !inside(h.live_offset, h.live, sizeof(ReplayLiveBlock)))
      throw bad("thread " + std::to_string(i) + " out of bounds");
    // Found by fuzzing (tests/fuzz/replay_program_fuzz.cpp): the replay loop runs the ops as they
    // are, indexing the slot table with their slots, so a file whose ops name a slot beyond
    // `slots` (or an unknown kind, or a misaligned array) made the cell write outside its slot
    // table.  save_replay_program writes none of these: such a file is refused here, once, before
    // the measured phase.
    if (h.ops_offset % alignof(ReplayOp) != 0 || h.samples_offset % alignof(ReplaySamplePoint) != 0 ||
        h.live_offset % alignof(ReplayLiveBlock) != 0)
      throw bad("thread " + std::to_string(i) + " misaligned");
    const Thread t{h.trace_thread, h.tid, {reinterpret_cast<const ReplayOp*>(base + h.ops_offset), std::size_t(h.ops)},
                   {reinterpret_cast<const ReplaySamplePoint*>(base + h.samples_offset), std::size_t(h.samples)},
                   {reinterpret_cast<const ReplayLiveBlock*>(base + h.live_offset), std::size_t(h.live)}};
    for (const ReplayOp& op : t.ops)
      if (op.kind > ReplayOpKind::reallocate || op.slot >= slots_ || (op.kind == ReplayOpKind::reallocate && op.old_slot >= slots_) ||
          op.align_log2 > kMaxAlignLog2 || op.old_align_log2 > kMaxAlignLog2)
        throw bad("thread " + std::to_string(i) + " has an op beyond the program's " + std::to_string(slots_) + " slots or of unknown kind");
    for (const ReplayLiveBlock& b : t.live_at_end)
      if (b.slot >= slots_ || b.align_log2 > kMaxAlignLog2)
        throw bad("thread " + std::to_string(i) + " has a live block beyond the program's " + std::to_string(slots_) + " slots");
    threads_.push_back(t);
  }
}

MappedReplayProgram::~MappedReplayProgram() {
  if (map_ != nullptr) ::munmap(map_, bytes_);
}

}  // namespace allocstress
