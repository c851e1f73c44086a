// parse_thread_list(): lists, ranges, and one clear error for everything else.
#include "plan/thread_list.hpp"
#include "platform/errors.hpp"

#include <gtest/gtest.h>

namespace allocstress {
namespace {

TEST(ThreadList, ListsAndRanges) {
  EXPECT_EQ(parse_thread_list("1,2,4"), (std::vector<unsigned>{1, 2, 4}));
  EXPECT_EQ(parse_thread_list("1-3"), (std::vector<unsigned>{1, 2, 3}));
  EXPECT_EQ(parse_thread_list("4,1-2,2"), (std::vector<unsigned>{1, 2, 4}));
}

TEST(ThreadList, RejectsBadInput) {
  for (const char* bad : {"0", "abc", "", "3-1", "1,,2", "-1", "2-", "1.5", "0-2", "99999999"})
    EXPECT_THROW(parse_thread_list(bad), UsageError) << "'" << bad << "'";
}

TEST(ThreadList, ErrorNamesInputAndAcceptedForm) {
  try {
    parse_thread_list("x");
    FAIL();
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'x'"), std::string::npos) << what;
    EXPECT_NE(what.find("accepted"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace allocstress
