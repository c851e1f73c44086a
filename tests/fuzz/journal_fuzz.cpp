// libFuzzer target for the results journal (results/results_journal.hpp), which `matrix --resume`
// reads back to continue an interrupted run.
//
// Contract: ResultsJournal::open_existing(path) on any bytes either opens the journal (cutting a
// torn last line) or throws std::runtime_error naming the file.  An opened journal opens again
// with the same header and records (the cut is idempotent), and resume's reading of its plan
// (MatrixPlan::from_json of the header's "plan", cli/commands/matrix_backends.cpp) either gives a plan or
// throws std::runtime_error.  Any other exception, a crash, a sanitizer report, a leak, a timeout
// or an allocation beyond libFuzzer's limit is a finding.
#include "plan/matrix_plan.hpp"
#include "results/results_journal.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  fuzz::fresh_process_state();
  const std::filesystem::path path = fuzz::input_file(data, size, "results.journal.jsonl");
  nlohmann::json header;
  std::map<std::string, nlohmann::json> records;
  if (!fuzz::within_contract<std::runtime_error>("ResultsJournal::open_existing", [&] {
        const ResultsJournal journal = ResultsJournal::open_existing(path);
        header = journal.header();
        records = journal.records();
      }))
    return 0;
  fuzz::within_contract<>("ResultsJournal::open_existing, again", [&] {
    const ResultsJournal again = ResultsJournal::open_existing(path);
    fuzz::require(again.header() == header && again.records() == records, "a journal opened twice reads differently");
  });
  fuzz::within_contract<std::runtime_error>("MatrixPlan::from_json of the journal's plan",
                                            [&] { MatrixPlan::from_json(header.value("plan", nlohmann::json())); });
  return 0;
}
