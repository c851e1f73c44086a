// Singly linked node chains shared by `linkedlist` (one chain) and `multilist` (one chain per
// head node): the node layout, appending, walking, and the churn that deletes nodes at given
// positions and inserts new ones at others.  Positions are global: the chains are counted one
// after another, as if concatenated.
#pragma once

#include <algorithm>
#include <span>

#include "workloads/structures/structure_params.hpp"

namespace allocstress::structure_detail {

struct ChainNode {
  std::uint64_t key;
  ChainNode* next;
};
inline constexpr std::size_t kChainNodeBase = sizeof(ChainNode);

// Allocates a node with `key` and payload; nullptr (and out.failed_allocation_bytes) on failure.
template <Allocator A>
ChainNode* new_chain_node(A& alloc, std::size_t node_size, std::uint64_t key, PlacementHint hint, StructureOutcome& out) {
  void* mem = allocate_hinted(alloc, node_size, hint);
  if (mem == nullptr) {
    out.failed_allocation_bytes = node_size;
    return nullptr;
  }
  auto* n = static_cast<ChainNode*>(mem);
  *n = ChainNode{key, nullptr};
  fill_payload(n, kChainNodeBase, node_size, key);
  out.op_stream_hash = hash_step(out.op_stream_hash, key);
  return n;
}

// The churn plan: which global positions to delete, and where to insert which new keys.
struct ChainChurnPlan {
  std::vector<std::uint64_t> victims;        // sorted, distinct positions in the chains as built
  std::vector<std::uint64_t> insert_before;  // sorted positions in the chains after deletion
  std::vector<std::uint64_t> new_keys;       // one per insert_before
  std::vector<std::uint64_t> deleted_keys;   // filled by churn_chains (reserved by the planner)
};

ChainChurnPlan plan_chain_churn(WorkloadRng& rng, std::uint64_t live_nodes, std::uint64_t count);

// `chains` points at each chain's head pointer.  Deletes plan.victims, then inserts plan.new_keys (an insert before position p goes into the
// chain holding that node; p == node count appends to the last chain).  `hot(position)` says
// whether a new node at that position is hot.  Returns false when an allocation failed.
template <Allocator A, class HotAt>
bool churn_chains(A& alloc, std::span<ChainNode** const> chains, std::size_t node_size, bool hints, HotAt hot,
                  ChainChurnPlan& plan, StructureOutcome& out) {
  std::uint64_t pos = 0;
  std::size_t v = 0;
  for (ChainNode** head : chains) {
    for (ChainNode** link = head; *link != nullptr && v < plan.victims.size();) {
      if (pos++ == plan.victims[v]) {
        ChainNode* dead = *link;
        *link = dead->next;
        plan.deleted_keys.push_back(dead->key);
        out.op_stream_hash = hash_step(out.op_stream_hash, ~dead->key);
        alloc.deallocate(dead, node_size);
        ++v;
      } else {
        link = &(*link)->next;
      }
    }
  }
  pos = 0;
  std::size_t i = 0;
  ChainNode** last_link = nullptr;
  for (ChainNode** head : chains) {
    ChainNode** link = head;
    for (;;) {
      while (i < plan.insert_before.size() && plan.insert_before[i] == pos && *link != nullptr) {
        const PlacementHint hint = !hints ? PlacementHint::none : hot(pos) ? PlacementHint::hot : PlacementHint::cold;
        ChainNode* n = new_chain_node(alloc, node_size, plan.new_keys[i], hint, out);
        if (n == nullptr) return false;
        n->next = *link;
        *link = n;
        link = &n->next;
        ++i;
      }
      if (*link == nullptr) break;
      link = &(*link)->next;
      ++pos;
    }
    last_link = link;
  }
  for (; i < plan.insert_before.size(); ++i) {  // positions at the very end
    if (last_link == nullptr) return true;     // no chains at all
    const PlacementHint hint = !hints ? PlacementHint::none : hot(pos) ? PlacementHint::hot : PlacementHint::cold;
    ChainNode* n = new_chain_node(alloc, node_size, plan.new_keys[i], hint, out);
    if (n == nullptr) return false;
    *last_link = n;
    last_link = &n->next;
  }
  return true;
}

// Walks `head` until `key`; counts every node compared.
inline const ChainNode* find_in_chain(const ChainNode* head, std::uint64_t key, std::uint64_t& visits) {
  for (const ChainNode* n = head; n != nullptr; n = n->next) {
    ++visits;
    if (n->key == key) return n;
  }
  return nullptr;
}

template <Allocator A>
void free_chain(A& alloc, ChainNode*& head, std::size_t node_size) {
  while (head != nullptr) {
    ChainNode* next = head->next;
    alloc.deallocate(head, node_size);
    head = next;
  }
}

// The reference set after a churn: removes plan.deleted_keys from `keys`, adds plan.new_keys.
// pre: `keys` has room for the new keys (reserved), so nothing is allocated.
void apply_churn_to_keys(ChainChurnPlan& plan, std::vector<std::uint64_t>& keys);

// Appends the live keys of every chain and checks payloads; "" when intact.
std::string collect_chain_keys(std::span<ChainNode* const> chains, std::size_t node_size, std::vector<std::uint64_t>& keys);

}  // namespace allocstress::structure_detail
