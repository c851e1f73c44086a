// Parameters, counts and shared mechanics of the data-structure workloads `bintree`,
// `linkedlist` and `multilist` (BACKGROUND §2, the Gleipnir experiments).  Each workload lives in
// its own header (bintree.hpp, linked_list.hpp, multilist.hpp) and follows the same phases:
//
//   build    (timed)   allocate and link `nodes` nodes, each `node_size` bytes: the workload's
//                      base fields (key, pointers) padded with a payload written at creation;
//                      with `interleave` > 0, every node allocation is followed by that many
//                      other-sized blocks (p ~ 1/size, 8..1023 B, written, kept live to the end),
//                      as a program's other data would sit between its nodes;
//   churn    (timed)   delete `churn_percent`% of the nodes, then insert as many new ones, so
//                      that new nodes land in the holes the allocator reuses;
//   search   (timed)   run `searches` pre-generated queries: 7 in 8 look for a live key, 1 in 8
//                      for a random odd key (node keys are even, so it is absent).  Only keys
//                      and links are read.
//   verify   (untimed) every query's found/not-found is checked against a reference set of
//                      live keys, every node's payload against its key, and the node count.
//
// Threads: each worker builds and searches its own structure from its own random stream.
// The operation stream (keys, sizes, query order) is a pure function of (parameters, seed,
// thread) and does not depend on the allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "allocators/allocator.hpp"
#include "workloads/inverse_size_sampler.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {

inline constexpr const char* kBinTreeWorkload = "bintree";
inline constexpr const char* kLinkedListWorkload = "linkedlist";
inline constexpr const char* kMultiListWorkload = "multilist";

bool is_structure_workload(std::string_view workload);

struct StructureParams {
  std::uint64_t nodes = 100'000;      // multilist: sub-list nodes in total (heads come on top)
  std::uint64_t node_size = 64;       // bytes per node, base fields included
  std::uint64_t searches = 1'000'000;
  unsigned interleave = 0;            // other-sized live blocks allocated after each node
  unsigned churn_percent = 0;         // 0..100
  bool hints = false;                 // pass PlacementHint (hot/cold) with every node allocation
  std::uint64_t heads = 64;           // multilist: head nodes, each owning nodes/heads sub-nodes
  double zipf = 1.0;                  // multilist: key1 popularity ~ 1/rank^zipf (0 = uniform)
};

// The defaults of each workload (sizes that take well under a second per cell natively).
StructureParams default_structure_params(std::string_view workload);

// Smallest node of each workload: base fields plus the 8-byte minimum payload of the model.
std::uint64_t min_node_size(std::string_view workload);
inline constexpr std::uint64_t kMaxNodeSize = 1u << 16;
inline constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kMaxSearches = 1'000'000'000'000;
inline constexpr unsigned kMaxInterleave = 64;
// The first kHotNodes nodes (by position from the entry point) are the ones a hint calls hot.
inline constexpr std::uint64_t kHotNodes = 1000;

// Throws std::invalid_argument with one line naming the bad parameter and the accepted range.
void validate(std::string_view workload, const StructureParams& params);

// What one worker thread did.  All counts are exact.
struct StructureOutcome {
  std::uint64_t nodes_built = 0;        // node allocations in build (interleaved blocks not included)
  std::uint64_t interleaved_blocks = 0;
  std::uint64_t nodes_churned = 0;      // deleted and as many re-inserted
  std::uint64_t searches = 0, found = 0, visits = 0;  // visits: nodes whose key was compared
  std::uint64_t live_nodes = 0;
  std::uint64_t peak_live_requested_bytes = 0, end_live_requested_bytes = 0;
  std::uint64_t op_stream_hash = 0xcbf29ce484222325ULL;  // over keys and sizes, in allocation order
  std::uint64_t failed_allocation_bytes = 0;  // != 0: allocate() returned nullptr
  std::string verify_error;             // "" when every check passed
};

namespace structure_detail {

inline std::uint64_t hash_step(std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

// The payload byte of a node with this key: every payload byte is set to it at creation.
inline unsigned char payload_byte(std::uint64_t key) { return static_cast<unsigned char>(mix_seed(key)); }

inline void fill_payload(void* node, std::size_t base, std::size_t node_size, std::uint64_t key) {
  std::memset(static_cast<unsigned char*>(node) + base, payload_byte(key), node_size - base);
}

inline bool payload_intact(const void* node, std::size_t base, std::size_t node_size, std::uint64_t key) {
  const auto* p = static_cast<const unsigned char*>(node);
  const unsigned char want = payload_byte(key);
  for (std::size_t i = base; i < node_size; ++i)
    if (p[i] != want) return false;
  return true;
}

// Other-sized blocks between node allocations (see the file comment); owned until release().
template <Allocator A>
class Interleaver {
 public:
  Interleaver(A& alloc, unsigned per_node, std::uint64_t nodes) : alloc_(alloc), per_node_(per_node), sizes_(10) {
    blocks_.reserve(std::size_t(per_node) * nodes);  // no harness allocation inside the timed build
  }
  // false: the allocator returned nullptr for *failed_bytes bytes.
  bool after_node(WorkloadRng& rng, StructureOutcome& out, std::uint64_t& live) {
    for (unsigned i = 0; i < per_node_; ++i) {
      const std::size_t size = sizes_.sample(rng());
      void* p = alloc_.allocate(size);
      if (p == nullptr) {
        out.failed_allocation_bytes = size;
        return false;
      }
      std::memset(p, 0x5a, size);
      blocks_.push_back({p, size});
      live += size;
      ++out.interleaved_blocks;
      out.op_stream_hash = hash_step(out.op_stream_hash, size);
    }
    return true;
  }
  void release() {
    for (const auto& b : blocks_) alloc_.deallocate(b.p, b.size);
    blocks_.clear();
  }

 private:
  struct Block {
    void* p;
    std::size_t size;
  };
  A& alloc_;
  unsigned per_node_;
  InverseSizeSampler sizes_;
  std::vector<Block> blocks_;
};

// A query key: a live key (7 in 8) or a random one.
inline std::uint64_t query_key(WorkloadRng& rng, const std::vector<std::uint64_t>& live_keys) {
  const std::uint64_t r = rng();
  if ((r & 7) == 7 || live_keys.empty()) return rng() | 1;  // odd keys: node keys are even
  return live_keys[std::size_t((r >> 3) % live_keys.size())];
}

// Node keys are even, so a random odd query key is certainly absent.
inline std::uint64_t node_key(WorkloadRng& rng) { return rng() & ~std::uint64_t{1}; }

// `count` distinct positions out of [0, live), sorted (selection sampling: position p is taken
// with probability still-needed / positions-left).
std::vector<std::uint64_t> choose_positions(WorkloadRng& rng, std::uint64_t live, std::uint64_t count);

// Sorted copy for membership checks during verification.
std::vector<std::uint64_t> sorted_keys(std::vector<std::uint64_t> keys);
bool contains(const std::vector<std::uint64_t>& sorted, std::uint64_t key);

// "" when `found` holds exactly the keys of `expected` (as multisets), else what differs.
std::string same_keys(std::vector<std::uint64_t> found, std::vector<std::uint64_t> expected);

// Verifies per-query results; "" when every query found exactly the live keys.
std::string check_queries(const std::vector<std::uint64_t>& queries, const std::vector<std::uint8_t>& found,
                          const std::vector<std::uint64_t>& live_keys);

// The search phase of every structure: query i is looked up by find(i, visits) (true: found;
// visits counts the nodes it touched), its result kept in found[i] for the untimed check, the
// totals in out.  A template, so that each structure's timed search() inlines its own lookup.
template <class Find>
void search_queries(std::size_t queries, std::vector<std::uint8_t>& found, StructureOutcome& out, Find find) {
  std::uint64_t visits = 0, hits = 0;
  for (std::size_t i = 0; i < queries; ++i) {
    const bool hit = find(i, visits);
    found[i] = hit;
    hits += hit;
  }
  out.searches = queries;
  out.visits = visits;
  out.found = hits;
}

}  // namespace structure_detail

}  // namespace allocstress
