// hwloc-backed topology queries, placement policies and thread pinning.
#include "topology.hpp"

#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

namespace allocstress {

struct Topology::Impl {
  hwloc_topology_t topo{};
  // PUs grouped by core, cores in logical order; each PU by OS index.
  std::vector<std::vector<unsigned>> pus_by_core;
  std::vector<unsigned> package_of_core;
  std::vector<unsigned> pus_in_logical_order;
};

std::string_view to_string(Placement p) { return p == Placement::compact ? "compact" : "scatter"; }

Placement parse_placement(std::string_view text) {
  if (text == "compact") return Placement::compact;
  if (text == "scatter") return Placement::scatter;
  throw std::invalid_argument("unknown placement '" + std::string(text) + "' (accepted: compact, scatter)");
}

Topology::Topology() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topo) != 0 || hwloc_topology_load(impl_->topo) != 0)
    throw std::runtime_error(std::string("hwloc could not load the machine topology: ") + std::strerror(errno));
  hwloc_topology_t t = impl_->topo;
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

std::vector<unsigned> Topology::choose_pus(const PlacementRequest& r) const {
  std::vector<unsigned> order;
  if (r.policy == Placement::compact) {
    order = impl_->pus_in_logical_order;
  } else {
    // Round-robin over packages, then over cores within a package, then over SMT siblings.
    std::map<unsigned, std::vector<std::size_t>> cores_of_package;
    for (std::size_t c = 0; c < impl_->pus_by_core.size(); ++c) cores_of_package[impl_->package_of_core[c]].push_back(c);
    std::vector<std::size_t> core_order;
    for (std::size_t k = 0; core_order.size() < impl_->pus_by_core.size(); ++k)
      for (auto& [pkg, cores] : cores_of_package)
        if (k < cores.size()) core_order.push_back(cores[k]);
    for (std::size_t sibling = 0; order.size() < pu_count(); ++sibling)
      for (std::size_t c : core_order)
        if (sibling < impl_->pus_by_core[c].size()) order.push_back(impl_->pus_by_core[c][sibling]);
  }
  if (r.reserve_os_pu && order.size() > 1) {
    // Reserve the last PU in logical order whatever the policy, so the OS always gets the same one.
    const unsigned reserved = impl_->pus_in_logical_order.back();
    std::erase(order, reserved);
  }
  if (r.threads == 0) throw std::invalid_argument("threads must be at least 1, got 0");
  if (r.threads > order.size() && !r.oversubscribe)
    throw std::invalid_argument("threads " + std::to_string(r.threads) + " exceeds the " + std::to_string(order.size()) +
                                " usable PUs" + (r.reserve_os_pu ? " (one reserved for the OS)" : "") +
                                " (accepted: 1.." + std::to_string(order.size()) + ", or pass --oversubscribe)");
  std::vector<unsigned> chosen(r.threads);
  for (unsigned i = 0; i < r.threads; ++i) chosen[i] = order[i % order.size()];
  return chosen;
}

std::string Topology::pin_current_thread(unsigned pu_os_index) const {
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
