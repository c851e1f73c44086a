// Workload `bintree` (BACKGROUND §2): an unbalanced binary search tree.
// Model: `nodes` random keys are inserted in draw order, so the tree is as deep as chance makes
// it (about 2 ln N on average, more for unlucky seeds); node = key + left + right (24 B) padded
// with payload to `node_size`.  Every search descends from the root, so the nodes near the root
// are visited by almost every query: their placement decides most cache misses.  With hints, a
// node inserted at depth < log2(kHotNodes) is hot, the rest cold.  Churn deletes random keys
// (relinking nodes, never copying keys between them) and inserts fresh ones.
// Phases and verification: structure_params.hpp.
#pragma once

#include <algorithm>
#include <bit>

#include "workloads/structures/structure_params.hpp"

namespace allocstress {

template <Allocator A>
class BinTreeWorkload {
 public:
  static constexpr std::size_t kBase = 24;
  static constexpr unsigned kHotDepth = std::bit_width(kHotNodes) - 1;

  BinTreeWorkload(A& alloc, const StructureParams& p, WorkloadRng& rng)
      : alloc_(alloc), p_(p), rng_(rng), interleave_(alloc, p.interleave, p.nodes) {
    keys_.reserve(p.nodes);
    victims_ = structure_detail::choose_positions(rng, p.nodes, p.nodes * p.churn_percent / 100);
    queries_.resize(p.searches);
    found_.resize(p.searches);
  }

  // Timed phases; each returns false when the allocator returned nullptr (out_.failed_allocation_bytes).
  bool build() {
    for (std::uint64_t i = 0; i < p_.nodes; ++i) {
      if (!insert_fresh_key()) return false;
      if (!interleave_.after_node(rng_, out_, live_bytes_)) return false;
      note_peak();
    }
    out_.nodes_built = p_.nodes;
    return true;
  }

  // Untimed: turns the victim positions (in build order, chosen up front) into keys, and takes
  // them out of the reference set.
  void prepare_churn() {
    for (auto& v : victims_) v = keys_[v];
    std::sort(victims_.begin(), victims_.end());  // deletions then run in key order
    std::erase_if(keys_, [&](std::uint64_t k) { return std::binary_search(victims_.begin(), victims_.end(), k); });
  }

  bool churn() {
    for (std::uint64_t key : victims_) erase(key);
    for (std::size_t i = 0; i < victims_.size(); ++i) {
      if (!insert_fresh_key()) return false;
      note_peak();
    }
    out_.nodes_churned = victims_.size();
    return true;
  }

  void prepare_searches() {
    for (auto& q : queries_) q = structure_detail::query_key(rng_, keys_);
  }

  void search() {
    structure_detail::search_queries(queries_.size(), found_, out_, [&](std::size_t i, std::uint64_t& visits) {
      const std::uint64_t key = queries_[i];
      const Node* n = root_;
      while (n != nullptr) {
        ++visits;
        if (key == n->key) break;
        n = key < n->key ? n->left : n->right;
      }
      return n != nullptr;
    });
  }

  // Untimed: query results, payloads, node count and BST order.
  void verify() {
    out_.live_nodes = keys_.size();
    out_.end_live_requested_bytes = live_bytes_;
    std::uint64_t count = 0;
    std::string bad;
    for_each_node_checked([&](const Node* n, std::uint64_t lo, std::uint64_t hi) {
      ++count;
      if (bad.empty() && !structure_detail::payload_intact(n, kBase, p_.node_size, n->key))
        bad = "bintree: payload of the node with key " + std::to_string(n->key) + " was overwritten";
      if (bad.empty() && (n->key < lo || n->key > hi)) bad = "bintree: search-tree order broken";
    });
    if (bad.empty() && count != keys_.size())
      bad = "bintree: " + std::to_string(count) + " nodes reachable, " + std::to_string(keys_.size()) + " expected";
    if (bad.empty()) bad = structure_detail::check_queries(queries_, found_, keys_);
    out_.verify_error = bad;
  }

  // f(address, bytes) for every live node.
  template <class F>
  void for_each_node(F f) const {
    for_each_node_checked([&](const Node* n, std::uint64_t, std::uint64_t) { f(static_cast<const void*>(n), std::size_t(p_.node_size)); });
  }

  void release() {
    free_subtree(root_);
    root_ = nullptr;
    interleave_.release();
  }

  const StructureOutcome& outcome() const { return out_; }

 private:
  struct Node {
    std::uint64_t key;
    Node* left;
    Node* right;
  };
  static_assert(sizeof(Node) == kBase);

  // Inserts a new random key; a key already present (astronomically rare) is redrawn.
  bool insert_fresh_key() {
    std::uint64_t key = structure_detail::node_key(rng_);
    Node** link = &root_;
    unsigned depth = 0;
    while (*link != nullptr) {
      if ((*link)->key == key) {
        key = structure_detail::node_key(rng_);
        link = &root_;
        depth = 0;
        continue;
      }
      link = key < (*link)->key ? &(*link)->left : &(*link)->right;
      ++depth;
    }
    const PlacementHint hint = !p_.hints ? PlacementHint::none : depth < kHotDepth ? PlacementHint::hot : PlacementHint::cold;
    void* mem = allocate_hinted(alloc_, std::size_t(p_.node_size), hint);
    if (mem == nullptr) {
      out_.failed_allocation_bytes = p_.node_size;
      return false;
    }
    Node* n = static_cast<Node*>(mem);
    *n = Node{key, nullptr, nullptr};
    structure_detail::fill_payload(n, kBase, std::size_t(p_.node_size), key);
    *link = n;
    keys_.push_back(key);
    live_bytes_ += p_.node_size;
    out_.op_stream_hash = structure_detail::hash_step(out_.op_stream_hash, key);
    return true;
  }

  // Removes the node holding `key` (present by construction) by relinking its neighbours.
  void erase(std::uint64_t key) {
    Node** link = &root_;
    while ((*link)->key != key) link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    Node* z = *link;
    if (z->left == nullptr) {
      *link = z->right;
    } else if (z->right == nullptr) {
      *link = z->left;
    } else {  // the in-order successor y takes z's place
      Node** ylink = &z->right;
      while ((*ylink)->left != nullptr) ylink = &(*ylink)->left;
      Node* y = *ylink;
      *ylink = y->right;
      y->left = z->left;
      y->right = z->right;
      *link = y;
    }
    alloc_.deallocate(z, std::size_t(p_.node_size));
    live_bytes_ -= p_.node_size;
    out_.op_stream_hash = structure_detail::hash_step(out_.op_stream_hash, ~key);
  }

  void note_peak() {
    if (live_bytes_ > out_.peak_live_requested_bytes) out_.peak_live_requested_bytes = live_bytes_;
  }

  // Iterative walk (a degenerate tree is too deep for recursion); f(node, lowest allowed key, highest).
  template <class F>
  void for_each_node_checked(F f) const {
    struct Item {
      const Node* n;
      std::uint64_t lo, hi;
    };
    std::vector<Item> stack;
    if (root_ != nullptr) stack.push_back({root_, 0, ~std::uint64_t{0}});
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      f(it.n, it.lo, it.hi);
      if (it.n->left != nullptr) stack.push_back({it.n->left, it.lo, it.n->key - 1});
      if (it.n->right != nullptr) stack.push_back({it.n->right, it.n->key + 1, it.hi});
    }
  }

  void free_subtree(Node* root) {
    std::vector<Node*> stack;
    if (root != nullptr) stack.push_back(root);
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (n->left != nullptr) stack.push_back(n->left);
      if (n->right != nullptr) stack.push_back(n->right);
      alloc_.deallocate(n, std::size_t(p_.node_size));
    }
  }

  A& alloc_;
  const StructureParams& p_;
  WorkloadRng& rng_;
  structure_detail::Interleaver<A> interleave_;
  Node* root_ = nullptr;
  std::vector<std::uint64_t> keys_;     // live keys (the reference set)
  std::vector<std::uint64_t> victims_;  // churn: positions in build order, then their keys
  std::vector<std::uint64_t> queries_;
  std::vector<std::uint8_t> found_;
  std::uint64_t live_bytes_ = 0;
  StructureOutcome out_;
};

}  // namespace allocstress
