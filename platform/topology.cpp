// hwloc-backed topology queries, placement policies and thread pinning (model in topology.hpp).
#include "platform/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

namespace allocstress {

namespace {

// How a policy walks the topology to build its worker order (the table behind topology.hpp's list).
struct Walk {
  bool round_robin_packages;  // cores round-robin over packages, else in logical order
  std::size_t min_pus;        // cores with fewer PUs are skipped
  std::size_t max_pus;        // PUs taken from each core: its first ones in logical order
  bool sibling_rounds;        // first PU of every core, then every second PU, ...; else core by core
  bool reserve_whole_core;    // reserve_os_pu leaves out the OS PU's whole core, else just that PU
};

constexpr std::size_t kAllPus = ~std::size_t(0);

Walk walk_of(Placement p) {
  switch (p) {
    case Placement::compact: return {false, 1, kAllPus, false, false};
    case Placement::scatter: return {true, 1, kAllPus, true, false};
    case Placement::one_per_core: return {false, 1, 1, false, true};
    case Placement::smt_pairs: return {false, 2, 2, false, true};
  }
  throw std::logic_error("unhandled placement");
}

}  // namespace

std::string_view to_string(Placement p) {
  switch (p) {
    case Placement::compact: return "compact";
    case Placement::scatter: return "scatter";
    case Placement::one_per_core: return "one-per-core";
    case Placement::smt_pairs: return "smt-pairs";
  }
  throw std::logic_error("unhandled placement");
}

std::string placement_names() {
  std::string names;
  for (Placement p : kAllPlacements) names += (names.empty() ? "" : ", ") + std::string(to_string(p));
  return names;
}

Placement parse_placement(std::string_view text) {
  for (Placement p : kAllPlacements)
    if (text == to_string(p)) return p;
  throw std::invalid_argument("unknown placement '" + std::string(text) + "' (accepted: " + placement_names() + ")");
}

struct Topology::Impl {
  hwloc_topology_t topo{};
  // PUs grouped by core, cores in logical order; each PU by OS index.
  std::vector<std::vector<unsigned>> pus_by_core;
  std::vector<unsigned> package_of_core;
  std::vector<unsigned> pus_in_logical_order;
  std::map<unsigned, std::size_t> core_of_pu;  // PU OS index -> position in pus_by_core

  struct WorkerOrder {
    std::vector<unsigned> pus;  // worker i runs on pus[i % size]
    std::size_t cores = 0;      // distinct cores in pus
    bool reserved = false;      // the reservation left something out
  };

  WorkerOrder worker_order(Placement policy, bool reserve_os_pu) const {
    const Walk w = walk_of(policy);
    std::vector<std::size_t> cores;  // positions in pus_by_core, in the order the policy visits them
    if (w.round_robin_packages) {
      std::map<unsigned, std::vector<std::size_t>> cores_of_package;
      for (std::size_t c = 0; c < pus_by_core.size(); ++c) cores_of_package[package_of_core[c]].push_back(c);
      for (std::size_t k = 0; cores.size() < pus_by_core.size(); ++k)
        for (auto& [pkg, in_package] : cores_of_package)
          if (k < in_package.size()) cores.push_back(in_package[k]);
    } else {
      for (std::size_t c = 0; c < pus_by_core.size(); ++c) cores.push_back(c);
    }
    std::erase_if(cores, [&](std::size_t c) { return pus_by_core[c].size() < w.min_pus; });

    WorkerOrder order;
    const auto taken = [&](std::size_t c) { return std::min(pus_by_core[c].size(), w.max_pus); };
    if (w.sibling_rounds) {
      std::size_t most = 0;
      for (std::size_t c : cores) most = std::max(most, taken(c));
      for (std::size_t sibling = 0; sibling < most; ++sibling)
        for (std::size_t c : cores)
          if (sibling < taken(c)) order.pus.push_back(pus_by_core[c][sibling]);
    } else {
      for (std::size_t c : cores)
        for (std::size_t sibling = 0; sibling < taken(c); ++sibling) order.pus.push_back(pus_by_core[c][sibling]);
    }

    if (reserve_os_pu) {
      // The OS always gets the last PU in logical order, whatever the policy.
      const unsigned os_pu = pus_in_logical_order.back();
      const std::size_t os_core = core_of_pu.at(os_pu);
      std::vector<unsigned> kept = order.pus;
      std::erase_if(kept, [&](unsigned pu) { return w.reserve_whole_core ? core_of_pu.at(pu) == os_core : pu == os_pu; });
      if (!kept.empty() && kept.size() != order.pus.size()) {  // never reserve the policy's last PU
        order.pus = std::move(kept);
        order.reserved = true;
      }
    }
    std::set<std::size_t> used;
    for (unsigned pu : order.pus) used.insert(core_of_pu.at(pu));
    order.cores = used.size();
    return order;
  }
};

Topology Topology::synthetic(std::string_view description) {
  const std::string text(description);
  return Topology(&text);
}

Topology::Topology() : Topology(nullptr) {}

Topology::Topology(const std::string* synthetic_description) : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topo) != 0)
    throw std::runtime_error(std::string("hwloc could not start: ") + std::strerror(errno));
  hwloc_topology_t t = impl_->topo;
  // From here on the destructor will not run if we throw: destroy the topology ourselves.
  const auto fail = [&](auto error) {
    hwloc_topology_destroy(t);
    throw error;
  };
  if (synthetic_description != nullptr && hwloc_topology_set_synthetic(t, synthetic_description->c_str()) != 0)
    fail(std::invalid_argument("hwloc rejected the synthetic topology '" + *synthetic_description +
                               "' (accepted: an hwloc synthetic description, e.g. 'package:2 core:4 pu:2')"));
  if (hwloc_topology_load(t) != 0)
    fail(std::runtime_error(std::string("hwloc could not load the machine topology: ") + std::strerror(errno)));
  const int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  std::map<unsigned, std::size_t> core_slot;  // core logical index -> position in pus_by_core
  for (int i = 0; i < npu; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, unsigned(i));
    impl_->pus_in_logical_order.push_back(pu->os_index);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
    const unsigned core_id = core ? core->logical_index : pu->logical_index;  // no core level: PU = core
    auto [it, inserted] = core_slot.emplace(core_id, impl_->pus_by_core.size());
    if (inserted) {
      impl_->pus_by_core.emplace_back();
      hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
      impl_->package_of_core.push_back(pkg ? pkg->logical_index : 0u);
    }
    impl_->pus_by_core[it->second].push_back(pu->os_index);
    impl_->core_of_pu[pu->os_index] = it->second;
  }
}

Topology::~Topology() { hwloc_topology_destroy(impl_->topo); }

unsigned Topology::pu_count() const { return unsigned(impl_->pus_in_logical_order.size()); }
unsigned Topology::core_count() const { return unsigned(impl_->pus_by_core.size()); }
unsigned Topology::package_count() const {
  const int n = hwloc_get_nbobjs_by_type(impl_->topo, HWLOC_OBJ_PACKAGE);
  return n > 0 ? unsigned(n) : 1u;
}
unsigned Topology::usable_pu_count(bool reserve_os_pu) const {
  const unsigned n = pu_count();
  return reserve_os_pu && n > 1 ? n - 1 : n;
}
unsigned Topology::usable_worker_count(Placement policy, bool reserve_os_pu) const {
  return unsigned(impl_->worker_order(policy, reserve_os_pu).pus.size());
}

std::vector<unsigned> Topology::choose_pus(const PlacementRequest& r) const {
  if (r.threads == 0) throw std::invalid_argument("threads must be at least 1, got 0");
  const Impl::WorkerOrder order = impl_->worker_order(r.policy, r.reserve_os_pu);
  if (order.pus.empty()) {  // only smt-pairs skips cores, and reservations never empty an order
    std::string others;
    for (Placement p : kAllPlacements)
      if (p != r.policy) others += (others.empty() ? "" : ", ") + std::string(to_string(p));
    throw std::invalid_argument("placement " + std::string(to_string(r.policy)) +
                                " needs SMT siblings, but there are no SMT siblings on this machine (1 PU per core) (accepted here: " +
                                others + ")");
  }
  const std::size_t usable = order.pus.size();
  if (r.threads > usable && !r.oversubscribe) {
    const std::string os_core = order.reserved ? ", the OS's core left out" : "";
    std::string why;
    switch (r.policy) {
      case Placement::compact:
      case Placement::scatter: why = order.reserved ? " (one reserved for the OS)" : ""; break;
      case Placement::one_per_core:
        why = " for one-per-core (one per core on " + std::to_string(order.cores) + " of the machine's " +
              std::to_string(core_count()) + " cores" + os_core + ")";
        break;
      case Placement::smt_pairs:
        why = " for smt-pairs (two SMT siblings on each of " + std::to_string(order.cores) + " cores" + os_core + ")";
        break;
    }
    throw std::invalid_argument("threads " + std::to_string(r.threads) + " exceeds the " + std::to_string(usable) +
                                " usable PUs" + why + " (accepted: 1.." + std::to_string(usable) +
                                ", or pass --oversubscribe)");
  }
  std::vector<unsigned> chosen(r.threads);
  for (unsigned i = 0; i < r.threads; ++i) chosen[i] = order.pus[i % usable];
  return chosen;
}

std::string Topology::pin_current_thread(unsigned pu_os_index) const {
  // hwloc "binds" successfully without doing anything on a topology that is not this machine's.
  if (!hwloc_topology_is_thissystem(impl_->topo))
    return "the topology is synthetic, not this machine's: pinning needs Topology()";
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(impl_->topo, pu_os_index);
  if (pu == nullptr) return "no PU with OS index " + std::to_string(pu_os_index);
  if (hwloc_set_cpubind(impl_->topo, pu->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    return std::string("hwloc_set_cpubind failed: ") + std::strerror(errno);
  return {};
}
nlohmann::json Topology::summary() const {
  nlohmann::json caches = nlohmann::json::array();
  const hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE};
  for (hwloc_obj_type_t type : cache_types) {
    const int n = hwloc_get_nbobjs_by_type(impl_->topo, type);
    if (n <= 0) continue;
    hwloc_obj_t c = hwloc_get_obj_by_type(impl_->topo, type, 0);
    if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
    // Field names follow Google Benchmark's context.caches (type, level, size, num_sharing).
    caches.push_back({{"level", c->attr->cache.depth},
                      {"type", c->attr->cache.type == HWLOC_OBJ_CACHE_DATA ? "Data" : "Unified"},
                      {"size", c->attr->cache.size},
                      {"line_size", c->attr->cache.linesize},
                      {"associativity", c->attr->cache.associativity},
                      {"num_sharing", hwloc_bitmap_weight(c->cpuset)},
                      {"count", n}});
  }
  const unsigned v = hwloc_get_api_version();
  return {{"packages", package_count()},
          {"cores", core_count()},
          {"pus", pu_count()},
          {"pu_os_indexes_logical_order", impl_->pus_in_logical_order},
          {"pu_os_indexes_by_core", impl_->pus_by_core},
          {"caches", caches},
          {"hwloc_version", std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff)}};
}

}  // namespace allocstress
