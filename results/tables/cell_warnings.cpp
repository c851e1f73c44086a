// Groups the warnings records carry once, for the Markdown summary and the HTML report
// (cell_warnings.hpp states the model).
#include "results/tables/cell_warnings.hpp"

#include <map>
#include <set>
#include <tuple>

namespace allocstress {

std::vector<CellWarningGroup> cell_warning_groups(const nlohmann::json& benchmarks) {
  using Cell = std::tuple<std::string, unsigned, std::string, std::string>;   // workload, threads, mode, allocator
  using Group = std::tuple<std::string, unsigned, std::string, std::string>;  // workload, threads, mode, text
  using Column = std::pair<std::string, std::string>;                         // workload, mode
  std::map<Cell, std::size_t> records;
  std::map<Column, std::size_t> column_records;
  std::map<std::pair<Column, std::string>, std::size_t> column_with;  // records of the column with the text
  std::map<Group, std::size_t> index;                                 // into `groups`
  std::vector<CellWarningGroup> groups;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const nlohmann::json& e = benchmarks[i];
    if (e.value("run_type", "iteration") != "iteration") continue;
    const std::string workload = e.value("workload", "alloc-test"), mode = e.value("mode", "timing"), allocator = e.value("allocator", "?");
    const unsigned threads = e.value("threads", 0u);
    ++records[{workload, threads, mode, allocator}];
    ++column_records[{workload, mode}];
    std::set<std::string> seen;  // a warning a record carries twice counts once
    for (const auto& w : e.value("warnings", nlohmann::json::array())) {
      if (!w.is_string() || !seen.insert(w.get<std::string>()).second) continue;
      const std::string text = w.get<std::string>();
      ++column_with[{{workload, mode}, text}];
      const auto [at, added] = index.try_emplace(Group{workload, threads, mode, text}, groups.size());
      if (added) groups.push_back(CellWarningGroup{workload, threads, mode, text, {}, false});
      auto& cells = groups[at->second].cells;
      auto cell = cells.begin();
      while (cell != cells.end() && cell->allocator != allocator) ++cell;
      if (cell == cells.end()) cell = cells.insert(cells.end(), CellWarningGroup::Cell{allocator, 0, 0, i});
      ++cell->with;
    }
  }
  for (CellWarningGroup& g : groups) {
    for (auto& c : g.cells) c.of = records[{g.workload, g.threads, g.mode, c.allocator}];
    g.everywhere = column_with[{{g.workload, g.mode}, g.text}] == column_records[{g.workload, g.mode}];
  }
  return groups;
}

nlohmann::json cell_warning_groups_json(const std::vector<CellWarningGroup>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const CellWarningGroup& g : groups) {
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& c : g.cells) cells.push_back({{"allocator", c.allocator}, {"with", c.with}, {"of", c.of}, {"first", c.first}});
    out.push_back({{"workload", g.workload}, {"threads", g.threads}, {"mode", g.mode}, {"text", g.text}, {"cells", cells},
                   {"everywhere", g.everywhere}});
  }
  return out;
}

}  // namespace allocstress
