// Merging the results files of one study (see results_merge.hpp).
#include "results/results_merge.hpp"

#include <algorithm>
#include <stdexcept>

namespace allocstress {

namespace {

using Json = nlohmann::json;

// Appends to `into` the items of `from` that it does not hold yet (compared whole, or by `key`).
void append_new(Json& into, const Json& from, const char* key = nullptr) {
  for (const Json& item : from) {
    const bool held = std::any_of(into.begin(), into.end(), [&](const Json& have) {
      return key != nullptr && have.is_object() && item.is_object() ? have.value(key, Json()) == item.value(key, Json()) : have == item;
    });
    if (!held) into.push_back(item);
  }
}

}  // namespace

Json merge_results(const std::vector<ResultsPart>& parts) {
  if (parts.empty()) throw std::invalid_argument("nothing to merge");
  for (const ResultsPart& p : parts)
    if (!p.results.is_object() || !p.results.contains("benchmarks") || !p.results.contains("context") ||
        !p.results.at("context").contains("plan"))
      throw std::invalid_argument(p.file + ": not a results document");
  Json merged = parts.front().results;
  Json& context = merged["context"];
  Json& plan = context["plan"];
  Json benchmarks = Json::array(), parts_json = Json::array();
  std::vector<std::string> workloads;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Json& doc = parts[i].results;
    const Json& part_plan = doc.at("context").at("plan");
    const auto part_workloads = part_plan.at("workloads").get<std::vector<std::string>>();
    for (const std::string& w : part_workloads) {
      if (std::find(workloads.begin(), workloads.end(), w) != workloads.end())
        throw std::invalid_argument("workload " + w + " is in two parts (" + parts[i].file + " and an earlier one): label one of them");
      workloads.push_back(w);
    }
    for (const Json& b : doc.at("benchmarks")) benchmarks.push_back(b);
    parts_json.push_back({{"file", parts[i].file},
                          {"command_line", doc.at("context").value("command_line", "")},
                          {"date", doc.at("context").value("date", "")},
                          {"workloads", part_workloads}});
    if (i == 0) continue;
    for (const char* map : {"workload_params", "workload_inputs", "structure_params"})
      if (part_plan.contains(map))
        for (const auto& [w, v] : part_plan.at(map).items()) plan[map][w] = v;
    for (const char* list : {"skipped", "thread_counts"}) append_new(plan[list], part_plan.value(list, Json::array()));
    for (const char* list : {"allocators", "excluded"}) append_new(plan[list], part_plan.value(list, Json::array()), "name");
    for (const char* most : {"repetitions", "cell_timeout_s"})
      if (part_plan.contains(most) && part_plan.at(most) > plan.value(most, Json(0))) plan[most] = part_plan.at(most);
    append_new(context["warnings"], doc.at("context").value("warnings", Json::array()));
  }
  auto& threads = plan["thread_counts"];
  std::sort(threads.begin(), threads.end());
  plan["workloads"] = workloads;
  context["parts"] = parts_json;
  merged["benchmarks"] = benchmarks;
  return merged;
}

}  // namespace allocstress
