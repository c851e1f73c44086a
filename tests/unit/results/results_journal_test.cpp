// ResultsJournal: durable appends, reading back for resume, torn last lines, and atomic writes.
#include "results/results_journal.hpp"
#include "platform/durable_files.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/scratch_folder.hpp"

namespace allocstress {
namespace {

namespace fs = std::filesystem;

class JournalTest : public testing::ScratchFolderTest {
 protected:
  JournalTest() : ScratchFolderTest("allocstress-journal-") {}
};

TEST_F(JournalTest, RecordsSurviveReopening) {
  const fs::path p = dir / "r.journal.jsonl";
  {
    auto j = ResultsJournal::create(p, {{"plan", 1}});
    j.append("a", {{"status", "ok"}});
    j.append("b", {{"status", "failed"}});
  }
  auto j = ResultsJournal::open_existing(p);
  EXPECT_EQ(j.header()["plan"], 1);
  ASSERT_EQ(j.records().size(), 2u);
  EXPECT_EQ(j.records().at("b")["status"], "failed");
}

TEST_F(JournalTest, TornLastLineIsIgnored) {
  const fs::path p = dir / "r.journal.jsonl";
  {
    auto j = ResultsJournal::create(p, {{"plan", 1}});
    j.append("a", {{"status", "ok"}});
  }
  std::ofstream(p, std::ios::app) << R"({"type":"cell","key":"b","rec)";
  EXPECT_EQ(ResultsJournal::open_existing(p).records().size(), 1u);
}

TEST_F(JournalTest, TornLineIsCutSoLaterAppendsStayReadable) {
  const fs::path p = dir / "r.journal.jsonl";
  {
    auto j = ResultsJournal::create(p, {{"plan", 1}});
    j.append("a", {{"status", "ok"}});
  }
  std::ofstream(p, std::ios::app) << R"({"type":"cell","key":"b","rec)";
  {
    auto j = ResultsJournal::open_existing(p);
    j.append("b", {{"status", "ok"}});
  }
  EXPECT_EQ(ResultsJournal::open_existing(p).records().size(), 2u);
}

TEST_F(JournalTest, OneMatrixPerJournal) {
  const fs::path p = dir / "r.journal.jsonl";
  auto running = ResultsJournal::create(p, {{"plan", 1}});
  try {
    ResultsJournal::open_existing(p);
    FAIL() << "a second writer was let in";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
}

TEST_F(JournalTest, InvalidUtf8IsReplacedNotThrown) {
  const fs::path p = dir / "r.journal.jsonl";
  auto j = ResultsJournal::create(p, {{"command_line", std::string("allocstress --out \xff.json")}});
  EXPECT_NO_THROW(j.append("a", {{"reason", std::string("stderr \xfe")}}));
}

TEST_F(JournalTest, RefusesToOverwriteAnExistingJournal) {
  const fs::path p = dir / "r.journal.jsonl";
  ResultsJournal::create(p, {});
  EXPECT_THROW(ResultsJournal::create(p, {}), std::runtime_error);
}

TEST_F(JournalTest, MissingOrForeignJournalIsAClearError) {
  EXPECT_THROW(ResultsJournal::open_existing(dir / "none.jsonl"), std::runtime_error);
  std::ofstream(dir / "foreign.jsonl") << "{\"hello\": 1}\n";
  EXPECT_THROW(ResultsJournal::open_existing(dir / "foreign.jsonl"), std::runtime_error);
}

TEST_F(JournalTest, AtomicWriteLeavesNoTemporaryFile) {
  const fs::path p = dir / "out.json";
  write_file_atomically(p, "first");
  write_file_atomically(p, "second");
  std::ifstream in(p);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "second");
  EXPECT_FALSE(fs::exists(dir / "out.json.tmp"));
  EXPECT_THROW(write_file_atomically(dir / "no-such-dir" / "x.json", "x"), std::runtime_error);
}

}  // namespace
}  // namespace allocstress
