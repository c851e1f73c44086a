// The one cell encoding (plan/cell_encoding.hpp) and the registry's option codec: every
// workload's cell survives JSON and its flags, and bad cells are refused with one line.
#include <gtest/gtest.h>

#include <algorithm>

#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "plan/presets.hpp"
#include "plan/workload_params.hpp"
#include "platform/errors.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {
namespace {

Cell cell_of(const WorkloadEntry& e) {
  Cell c;
  c.allocator = "pool";
  c.workload = std::string(e.name);
  c.threads = 2;
  c.placement = {Placement::scatter, true, true};
  c.params = e.defaults(find_preset("study").params);
  for (auto& [key, value] : c.params.items())
    if (value.is_null()) value = "/some/file";  // the file options have no default
  return c;
}

TEST(CellEncoding, EveryWorkloadsCellSurvivesJson) {
  for (const WorkloadEntry* e : workload_registry()) {
    Cell c = cell_of(*e);
    c.inputs = {{"program", "/tmp/x.bin"}};
    c.mode = e->profiles ? CellMode::profile : e->simulates_caches ? CellMode::simulate : CellMode::timing;
    c.profile = {16, "sample", 2048, 65536};
    c.allocator_library = "/opt/lib.so";
    const Cell back = cell_from_json(nlohmann::json::parse(cell_to_json(c).dump()));
    EXPECT_EQ(cell_to_json(back), cell_to_json(c)) << e->name;
    EXPECT_EQ(back.threads, 2u);
    EXPECT_EQ(back.placement.policy, Placement::scatter);
    EXPECT_EQ(back.params, c.params) << e->name;
  }
}

// option_text and option_value are inverses over every default of every option.
TEST(CellEncoding, EveryOptionsTextGivesItsValueBack) {
  for (const WorkloadEntry* e : workload_registry()) {
    const nlohmann::json params = cell_of(*e).params;
    for (const WorkloadOption* o : e->options) {
      if (o->kind == OptionKind::file) continue;  // must name an existing file (and may have no default: --size-fit)
      const nlohmann::json& v = params.at(std::string(o->key));
      const std::string text = option_text(*o, v);
      if (o->kind == OptionKind::flag && text.empty()) continue;  // a false flag is left out
      EXPECT_EQ(option_value(*o, text), v) << e->name << " " << o->flag << " " << text;
    }
  }
}

TEST(CellEncoding, PercentagesReadBackExactly) {
  const WorkloadEntry& x = workload_entry("xthread");
  const WorkloadOption* share = nullptr;
  for (const WorkloadOption* o : x.options)
    if (o->flag == "--remote-share") share = o;
  ASSERT_NE(share, nullptr);
  // A fraction a percentage gave is written back as a percentage that gives it again.
  for (const char* typed : {"0", "7", "10", "33.3", "50", "99.9", "100", "12.345678"}) {
    const double fraction = option_value(*share, typed).get<double>();
    const std::string text = option_text(*share, fraction);
    EXPECT_EQ(option_value(*share, text).get<double>(), fraction) << typed << " -> " << text;
    EXPECT_EQ(text, typed);
  }
}

// The flags a cell's command carries rebuild its parameters through the registry.
TEST(CellEncoding, TheCommandsFlagsRebuildTheParameters) {
  for (const WorkloadEntry* e : workload_registry()) {
    if (e->prepare != nullptr || e->input_defaults != nullptr) continue;  // their file options need real files
    Cell c = cell_of(*e);
    const std::vector<std::string> argv = cell_command("/bin/allocstress", c);
    OptionValues given;
    for (std::size_t i = 8; i < argv.size(); ++i) {  // after run --allocator A --workload W --threads N
      if (argv[i] == "--placement") break;
      const bool flag = i + 1 >= argv.size() || argv[i + 1].starts_with("--");
      given[argv[i]] = flag ? "true" : argv[i + 1];
      if (!flag) ++i;
    }
    EXPECT_EQ(workload_params(*e, find_preset("quick").params, given), c.params) << e->name;
  }
}

TEST(CellEncoding, BadCellsAreOneLineErrors) {
  auto error_of = [](const nlohmann::json& j) {
    try {
      cell_from_json(j, "cell file c.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(nlohmann::json::array()), "cell file c.json: not a JSON object (accepted: a cell, as `allocstress matrix --plan-only` lists them)");
  EXPECT_EQ(error_of({{"workload", "alloc-test"}, {"threads", 1}, {"params", nlohmann::json::object()}}),
            "cell file c.json: 'allocator' is missing (accepted: a catalogue name)");
  EXPECT_NE(error_of({{"allocator", "pool"}, {"workload", "hashmap"}, {"threads", 1}, {"params", nlohmann::json::object()}})
                .find("unknown workload 'hashmap' (accepted: alloc-test, "),
            std::string::npos);
  // Counts are whole numbers, refused as what they are (never -3 read as 4294967293, 2.5 as 2).
  for (const auto& [threads, text] : std::vector<std::pair<nlohmann::json, std::string>>{
           {"two", "\"two\""}, {-3, "-3"}, {2.5, "2.5"}, {0, "0"}, {nlohmann::json::parse("1e3"), "1000.0"}})
    EXPECT_EQ(error_of({{"allocator", "pool"}, {"workload", "alloc-test"}, {"threads", threads}, {"params", nlohmann::json::object()}}),
              "cell file c.json: \"threads\" must be a whole number ≥ 1, got " + text);
  EXPECT_EQ(error_of({{"allocator", "pool"}, {"workload", "alloc-test"}, {"threads", 1}, {"params", nlohmann::json::object()}, {"mode", "profile"},
                      {"profile", {{"sample_every", -1}}}}),
            "cell file c.json: profile: \"sample_every\" must be a whole number ≥ 1, got -1");
  EXPECT_EQ(error_of({{"allocator", "pool"}, {"workload", "alloc-test"}, {"threads", 1}, {"params", 3}}),
            "cell file c.json: 'params' is 3 (accepted: a JSON object)");
  EXPECT_EQ(error_of({{"allocator", "pool"}, {"workload", "alloc-test"}, {"threads", 1}, {"params", nlohmann::json::object()}, {"mode", "fast"}}),
            "cell file c.json: unknown cell mode 'fast' (accepted: timing, simulate, profile, counts, limited, aged, thp, soak)");
  const nlohmann::json aged = {{"allocator", "pool"}, {"workload", "alloc-test"}, {"threads", 1}, {"params", nlohmann::json::object()}, {"mode", "aged"}};
  EXPECT_EQ(error_of(aged), "cell file c.json: 'age' is missing (accepted: an ageing spec, as --age takes it)");
  nlohmann::json bad_age = aged;
  bad_age["age"] = "64M,keep=2";
  EXPECT_NE(error_of(bad_age).find("cell file c.json: --age '64M,keep=2': keep=2 is not in [0, 1)"), std::string::npos) << error_of(bad_age);
  nlohmann::json timing_with_age = aged;
  timing_with_age["mode"] = "timing";
  timing_with_age["age"] = "64M";
  EXPECT_EQ(error_of(timing_with_age), "cell file c.json: 'age' is set but the mode is timing (accepted: 'age' with mode aged only)");
  nlohmann::json thp = aged;
  thp["mode"] = "thp";
  EXPECT_EQ(error_of(thp), "cell file c.json: 'thp_mode' is missing (accepted: never, madvise or always)");
  thp["thp_mode"] = "sometimes";
  EXPECT_EQ(error_of(thp), "cell file c.json: unknown THP mode 'sometimes' (accepted: never, madvise, always)");
  nlohmann::json soak = aged;
  soak["mode"] = "soak";
  EXPECT_EQ(error_of(soak), "cell file c.json: 'soak' is missing (accepted: a soak spec, as --soak takes it)");
  soak["soak"] = "60";
  EXPECT_NE(error_of(soak).find("cell file c.json: --soak '60': the duration '60' is not a number with s, m or h"), std::string::npos) << error_of(soak);
}

// A cell of a mode with a value (aged, soak: its spec; thp: its THP mode) carries the value through
// JSON, onto its command line (after `flag`) and into its name.
void expect_mode_value_kept(CellMode mode, std::string Cell::*field, const std::string& value, const char* flag, const std::string& suffix) {
  Cell c = cell_of(workload_entry("alloc-test"));
  c.mode = mode;
  c.*field = value;
  const Cell back = cell_from_json(cell_to_json(c), "test");
  EXPECT_EQ(back.mode, mode);
  EXPECT_EQ(back.*field, value);
  EXPECT_EQ(name_suffix(back), suffix);
  const std::vector<std::string> argv = cell_command("/bin/allocstress", c);
  const auto at = std::find(argv.begin(), argv.end(), flag);
  ASSERT_NE(at, argv.end()) << flag;
  EXPECT_EQ(*(at + 1), value);
}

TEST(CellEncoding, AgedThpAndSoakCellsKeepTheirValues) {
  expect_mode_value_kept(CellMode::aged, &Cell::age, "64M,keep=0.5", "--age", "/aged");
  expect_mode_value_kept(CellMode::aged, &Cell::age, warmed_spec_text("64M"), "--age", "/aged:warmed");
  expect_mode_value_kept(CellMode::thp, &Cell::thp_mode, "always", "--thp", "/thp:always");
  expect_mode_value_kept(CellMode::soak, &Cell::soak, "2m,every=10s", "--soak", "/soak");
  const nlohmann::json timing = cell_to_json(cell_of(workload_entry("alloc-test")));
  EXPECT_FALSE(timing.contains("age") || timing.contains("thp_mode") || timing.contains("soak"));  // timing cells carry none
}

// A cell's parameters are checked by its workload: a missing or mistyped field names itself.
TEST(CellEncoding, CheckCellNamesTheBadParameter) {
  AllocatorSpec pool;
  pool.name = "pool";
  pool.kind = AllocatorKind::in_tree;
  Cell c = cell_of(workload_entry("alloc-test"));
  c.params.erase("iterations_per_thread");
  try {
    check_cell(c, pool);
    FAIL() << "a cell without iterations passed";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "params: 'iterations_per_thread' is missing");
  }
  c = cell_of(workload_entry("bintree"));
  c.params["nodes"] = -3;
  EXPECT_THROW(check_cell(c, pool), UsageError);
  AllocatorSpec void_allocator;
  void_allocator.name = "void";
  void_allocator.kind = AllocatorKind::in_tree;
  try {
    check_cell(cell_of(workload_entry("bintree")), void_allocator);
    FAIL() << "void ran a tree";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("allocator 'void' cannot run bintree: void returns one buffer"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace allocstress
