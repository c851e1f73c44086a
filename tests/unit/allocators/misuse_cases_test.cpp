// The misuse battery's classifier (allocators/safety/misuse_cases.hpp) on hand-written probe runs:
// each way a case can end maps to one outcome class, and the case list is read strictly.
#include <gtest/gtest.h>
#include <signal.h>

#include "allocators/safety/conformance.hpp"
#include "allocators/safety/misuse_cases.hpp"

namespace allocstress {
namespace {

ChildOutcome exited(int code, std::string out, std::string err = "") {
  ChildOutcome o;
  o.end = ChildOutcome::End::exited;
  o.exit_code = code;
  o.out = std::move(out);
  o.err = std::move(err);
  return o;
}

ChildOutcome signaled(int sig, std::string out, std::string err = "") {
  ChildOutcome o = exited(0, std::move(out), std::move(err));
  o.end = ChildOutcome::End::signaled;
  o.exit_code = -1;
  o.signal = sig;
  return o;
}

constexpr const char* kUpToMisuse = "provider /lib/x.so\nstep setup\nstep misuse\n";

TEST(MisuseCases, AnAbortAfterTheMisuseIsADetectionWithTheAllocatorsMessage) {
  const CaseResult r = classify_case_run("double-free", signaled(SIGABRT, kUpToMisuse, "free(): double free detected in tcache 2\n"), 5);
  EXPECT_EQ(r.outcome, MisuseOutcome::detected);
  EXPECT_EQ(r.message, "free(): double free detected in tcache 2");
  EXPECT_NE(r.detail.find("SIGABRT"), std::string::npos) << r.detail;
  // The same abort during setup is no detection: the misuse had not happened yet.
  EXPECT_EQ(classify_case_run("double-free", signaled(SIGABRT, "step setup\n"), 5).outcome, MisuseOutcome::crashed);
}

TEST(MisuseCases, AFaultAtTheTargetIsADetectionElsewhereACrashAndLaterCorruption) {
  EXPECT_EQ(classify_case_run("write-after-free", exited(70, std::string(kUpToMisuse) + "fault target misuse 11 0x7f0000001000\n"), 5).outcome,
            MisuseOutcome::detected);
  EXPECT_EQ(classify_case_run("free-stack", exited(70, std::string(kUpToMisuse) + "fault elsewhere misuse 11 0x10\n"), 5).outcome,
            MisuseOutcome::crashed);
  const CaseResult later = classify_case_run("overflow-16", exited(70, std::string(kUpToMisuse) + "step follow\nfault elsewhere follow 11 0x41414141\n"), 5);
  EXPECT_EQ(later.outcome, MisuseOutcome::corrupted);
  EXPECT_NE(later.detail.find("crashed later"), std::string::npos) << later.detail;
  // A fault signal the handler did not catch: inside the misused call, or later.
  EXPECT_EQ(classify_case_run("free-stack", signaled(SIGSEGV, kUpToMisuse), 5).outcome, MisuseOutcome::crashed);
  EXPECT_EQ(classify_case_run("free-stack", signaled(SIGSEGV, std::string(kUpToMisuse) + "step follow\n"), 5).outcome, MisuseOutcome::corrupted);
}

TEST(MisuseCases, TheProbesOwnOutcomeLineDecidesWhenItRanToTheEnd) {
  EXPECT_EQ(classify_case_run("malloc-size-max", exited(0, std::string(kUpToMisuse) + "outcome error ENOMEM\n"), 5).outcome,
            MisuseOutcome::error_returned);
  const CaseResult c = classify_case_run("double-free", exited(0, std::string(kUpToMisuse) + "outcome corrupted the same block was handed out twice\n"), 5);
  EXPECT_EQ(c.outcome, MisuseOutcome::corrupted);
  EXPECT_EQ(c.detail, "the same block was handed out twice");
  EXPECT_EQ(classify_case_run("double-free", exited(0, std::string(kUpToMisuse) + "outcome silent no block handed out twice\n"), 5).outcome,
            MisuseOutcome::silent);
  // Reported on stderr, and no harm followed: the allocator stopped it.
  const CaseResult warned =
      classify_case_run("double-free", exited(0, std::string(kUpToMisuse) + "outcome silent no block handed out twice\n", "mimalloc: error: double free\n"), 5);
  EXPECT_EQ(warned.outcome, MisuseOutcome::detected);
  EXPECT_EQ(warned.message, "mimalloc: error: double free");
}

TEST(MisuseCases, ATimeoutIsAHangAndAnExitByTheAllocatorADetection) {
  ChildOutcome hang = exited(0, kUpToMisuse);
  hang.end = ChildOutcome::End::timed_out;
  const CaseResult h = classify_case_run("freelist-overwrite", hang, 2);
  EXPECT_EQ(h.outcome, MisuseOutcome::hang);
  EXPECT_NE(h.detail.find("last step: misuse"), std::string::npos) << h.detail;
  EXPECT_EQ(classify_case_run("double-free", exited(1, kUpToMisuse, "error: bad free\n"), 5).outcome, MisuseOutcome::detected);
  EXPECT_EQ(classify_case_run("double-free", exited(0, kUpToMisuse), 5).outcome, MisuseOutcome::crashed);  // no outcome line
}

TEST(MisuseCases, OutcomeNamesRoundTripAndUnknownOnesAreRefused) {
  for (MisuseOutcome o : kAllOutcomes) EXPECT_EQ(outcome_from_name(outcome_name(o)), o);
  EXPECT_THROW(outcome_from_name("caught"), std::invalid_argument);
  EXPECT_TRUE(is_caught(MisuseOutcome::error_returned));
  EXPECT_FALSE(is_caught(MisuseOutcome::silent));
}

TEST(MisuseCases, TheCaseListIsReadStrictly) {
  const auto cases = parse_case_list("provider /usr/lib/libc.so.6\ndouble-free\tdouble free\t1\tFrees a block twice.\nmalloc-zero\tedge\t0\tAsks for 0 bytes.\n");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "double-free");
  EXPECT_TRUE(cases[0].scored);
  EXPECT_FALSE(cases[1].scored);
  EXPECT_EQ(cases[1].description, "Asks for 0 bytes.");
  EXPECT_THROW(parse_case_list("double-free\tdouble free\tyes\tx\n"), std::runtime_error);
  EXPECT_THROW(parse_case_list("provider x\n"), std::runtime_error);
  EXPECT_EQ(probe_provider("provider /usr/lib/libjemalloc.so.2\nstep setup\n"), "/usr/lib/libjemalloc.so.2");
}

TEST(Conformance, TheFirstFailureOrHowTheCheckEndedEarly) {
  EXPECT_EQ(conformance_failure(exited(0, "provider x\ncheck alignment\nok alignment\ncheck calloc\nok calloc\ndone\n"), 5), "");
  EXPECT_EQ(conformance_failure(exited(0, "check alignment\nfail alignment: malloc(24) returned 0x8, not aligned to 16\n"
                                          "check calloc\nfail calloc: byte 3 of calloc(16) is 0xff\ndone\n"),
                                5),
            "alignment: malloc(24) returned 0x8, not aligned to 16 (and 1 more check(s) failed)");
  const std::string crashed = conformance_failure(signaled(SIGSEGV, "check alignment\nok alignment\ncheck realloc\n"), 5);
  EXPECT_NE(crashed.find("ended early in check realloc"), std::string::npos) << crashed;
  EXPECT_NE(conformance_failure(exited(0, "check alignment\nok alignment\n"), 5).find("ended early"), std::string::npos);  // no `done`
}

}  // namespace
}  // namespace allocstress
