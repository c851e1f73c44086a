// The Markdown summary's memory tables beside the timing tables: the outcomes of the limited
// cells (mode "limited": a memory cgroup per cell, run/memory_limit_cell.hpp), the ageing
// penalty and the THP modes (variant_tables.cpp), and the soak cells (soak_tables.cpp).  The HTML
// report renders the same text (_core.memory_markdown), so the two cannot disagree.
#include <string>

#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

std::string count_text(const Json& v) { return v.is_number() ? std::to_string(v.get<std::uint64_t>()) : "n/a"; }

}  // namespace

void memory_limit_table(std::ostringstream& md, const Json& benchmarks) {
  std::vector<const Json*> rows;
  for (const auto& e : benchmarks)
    if (e.value("mode", "") == "limited" && e.value("run_type", "iteration") == "iteration" && e.contains("memory_limit")) rows.push_back(&e);
  if (rows.empty()) return;
  const Json& first = rows.front()->at("memory_limit");
  md << "\n### Under a memory limit (" << first.value("spec", std::string("?")) << ", " << first.value("controller", std::string("?"))
     << "; mode limited, separate from the timing runs)\n\n"
     << "| workload | allocator | threads | outcome | limit MiB | unlimited peak MiB | cgroup peak MiB | limit hits | high events | OOM kills | "
        "wall s | peak RSS MiB |\n"
     << "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Json* e : rows) {
    const Json& l = e->at("memory_limit");
    md << "| " << e->value("workload", std::string("?")) << " | " << e->value("allocator", std::string("?")) << " | " << e->value("threads", 0u) << " | **"
       << l.value("outcome", std::string("?")) << "** | " << mib(l.value("max_bytes", Json())) << " | " << mib(l.value("unlimited_peak_rss_bytes", Json()))
       << " | " << mib(l.value("cgroup_peak_bytes", Json())) << " | " << count_text(l.value("limit_hits", Json())) << " | "
       << count_text(l.value("high_events", Json())) << " | " << count_text(l.value("oom_kills", Json())) << " | " << fixed(l.value("wall_s", Json()), 2)
       << " | " << mib(e->value("peak_rss_bytes", Json())) << " |\n";
  }
  md << "\nOne process per row, in a memory cgroup of its own whose limit is the spec resolved for it (FxPEAK: F x the median "
        "peak RSS of the same cell's unlimited timing runs). **completed**: the cgroup never reached its limit; **throttled**: "
        "it finished, but the kernel had to reclaim at the limit (cgroup v1: memory.failcnt > 0) or throttle it above "
        "memory.high (v2: high events), so the allocator gave memory back only when forced; **oom-killed**: the kernel's OOM "
        "killer ended it (the allocator did not fit); **failed**: the process failed otherwise (its reason is in the record). "
        "Limit hits: v1 memory.failcnt, v2 memory.events max. cgroup peak: v1 memory.max_usage_in_bytes, v2 memory.peak "
        "(it counts page cache and kernel memory charged to the cell, not only its RSS). n/a: the controller has no such counter.\n";
}

void memory_tables(std::ostringstream& md, const Json& benchmarks) {
  memory_limit_table(md, benchmarks);
  ageing_penalty_table(md, benchmarks);
  thp_modes_table(md, benchmarks);
  soak_table(md, benchmarks);
}

}  // namespace allocstress::table_parts
