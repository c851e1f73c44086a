// Defaults, validation and the untimed helpers of the data-structure workloads.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "workloads/structures/list_chain.hpp"
#include "workloads/structures/structure_params.hpp"

namespace allocstress {

bool is_structure_workload(std::string_view w) {
  return w == kBinTreeWorkload || w == kLinkedListWorkload || w == kMultiListWorkload;
}

StructureParams default_structure_params(std::string_view workload) {
  StructureParams p;
  if (workload == kLinkedListWorkload) {  // a search walks half the list: N * M / 2 visits
    p.nodes = 10'000;
    p.searches = 20'000;
  } else if (workload == kMultiListWorkload) {
    p.nodes = 50'000;
    p.heads = 256;
    p.searches = 200'000;
  }
  return p;
}

std::uint64_t min_node_size(std::string_view workload) {
  return (workload == kLinkedListWorkload ? structure_detail::kChainNodeBase : 24) + 8;
}

void validate(std::string_view workload, const StructureParams& p) {
  const std::string w(workload);
  auto range = [&](const char* what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    if (v < lo || v > hi)
      throw std::invalid_argument(w + ": " + what + " out of range: " + std::to_string(v) + " (accepted: " +
                                  std::to_string(lo) + ".." + std::to_string(hi) + ")");
  };
  if (!is_structure_workload(workload))
    throw std::invalid_argument("unknown data-structure workload '" + w + "' (accepted: bintree, linkedlist, multilist)");
  range("--nodes", p.nodes, 1, kMaxNodes);
  range("--node-size", p.node_size, min_node_size(workload), kMaxNodeSize);
  range("--searches", p.searches, 1, kMaxSearches);
  range("--interleave", p.interleave, 0, kMaxInterleave);
  range("--churn", p.churn_percent, 0, 100);
  if (workload == kMultiListWorkload) {
    range("--heads", p.heads, 1, p.nodes);
    if (!(std::isfinite(p.zipf) && p.zipf >= 0 && p.zipf <= 10))
      throw std::invalid_argument(w + ": --zipf out of range: " + std::to_string(p.zipf) + " (accepted: 0..10)");
  }
  if (p.node_size % 8 != 0)
    throw std::invalid_argument(w + ": --node-size " + std::to_string(p.node_size) + " is not a multiple of 8 (accepted: multiples of 8)");
}

namespace structure_detail {

std::vector<std::uint64_t> sorted_keys(std::vector<std::uint64_t> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

bool contains(const std::vector<std::uint64_t>& sorted, std::uint64_t key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

std::string same_keys(std::vector<std::uint64_t> found, std::vector<std::uint64_t> expected) {
  std::sort(found.begin(), found.end());
  std::sort(expected.begin(), expected.end());
  if (found.size() != expected.size())
    return std::to_string(found.size()) + " nodes reachable, " + std::to_string(expected.size()) + " expected";
  const auto diff = std::mismatch(found.begin(), found.end(), expected.begin());
  if (diff.first != found.end()) return "reachable key " + std::to_string(*diff.first) + " differs from expected key " + std::to_string(*diff.second);
  return "";
}

std::string check_queries(const std::vector<std::uint64_t>& queries, const std::vector<std::uint8_t>& found,
                          const std::vector<std::uint64_t>& live_keys) {
  const std::vector<std::uint64_t> sorted = sorted_keys(live_keys);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const bool want = contains(sorted, queries[i]);
    if (bool(found[i]) != want)
      return "query " + std::to_string(i) + " (key " + std::to_string(queries[i]) + ") was " + (found[i] ? "" : "not ") +
             "found, but the key is " + (want ? "live" : "absent");
  }
  return "";
}

std::vector<std::uint64_t> choose_positions(WorkloadRng& rng, std::uint64_t live, std::uint64_t count) {
  std::vector<std::uint64_t> out;
  out.reserve(count);
  for (std::uint64_t p = 0; p < live && out.size() < count; ++p)
    if (rng() % (live - p) < count - out.size()) out.push_back(p);
  return out;
}

ChainChurnPlan plan_chain_churn(WorkloadRng& rng, std::uint64_t live_nodes, std::uint64_t count) {
  ChainChurnPlan plan;
  plan.victims = choose_positions(rng, live_nodes, count);
  const std::uint64_t remaining = live_nodes - count;
  for (std::uint64_t i = 0; i < count; ++i) {
    plan.insert_before.push_back(rng() % (remaining + 1));
    plan.new_keys.push_back(node_key(rng));
  }
  std::sort(plan.insert_before.begin(), plan.insert_before.end());
  plan.deleted_keys.reserve(count);
  return plan;
}

void apply_churn_to_keys(ChainChurnPlan& plan, std::vector<std::uint64_t>& keys) {
  // In place (this runs inside the measured window): sort both, drop one key per deletion.
  std::sort(plan.deleted_keys.begin(), plan.deleted_keys.end());
  std::sort(keys.begin(), keys.end());
  auto dead = plan.deleted_keys.begin();
  std::erase_if(keys, [&](std::uint64_t k) {
    while (dead != plan.deleted_keys.end() && *dead < k) ++dead;
    if (dead == plan.deleted_keys.end() || *dead != k) return false;
    ++dead;
    return true;
  });
  keys.insert(keys.end(), plan.new_keys.begin(), plan.new_keys.end());
}

std::string collect_chain_keys(std::span<ChainNode* const> chains, std::size_t node_size, std::vector<std::uint64_t>& keys) {
  for (const ChainNode* head : chains)
    for (const ChainNode* n = head; n != nullptr; n = n->next) {
      if (!payload_intact(n, kChainNodeBase, node_size, n->key))
        return "payload of the node with key " + std::to_string(n->key) + " was overwritten";
      keys.push_back(n->key);
    }
  return "";
}

}  // namespace structure_detail

}  // namespace allocstress
