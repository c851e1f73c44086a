// A program as data (workloads/programs/program_definition.hpp): its checks refuse what cannot
// run and name it, placeholders expand, metrics read figures from output, the JSON form keeps
// everything; shell-like word splitting (platform/process/shell_words.hpp).
#include "workloads/programs/program_definition.hpp"

#include <gtest/gtest.h>

#include "platform/process/shell_words.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {
namespace {

ProgramDefinition simple() {
  ProgramDefinition p;
  p.name = "tool";
  p.command = {"/bin/sh", "-c", "echo {work:1000} {threads} {seed31}"};
  return p;
}

std::string refusal(const ProgramDefinition& p) {
  try {
    check_program_definition(p, "where");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ProgramDefinition, AValidOneIsAccepted) { EXPECT_EQ(refusal(simple()), ""); }

TEST(ProgramDefinition, EachFaultIsNamed) {
  ProgramDefinition p = simple();
  p.name = "bad name";
  EXPECT_NE(refusal(p).find("name 'bad name' is not 1..64"), std::string::npos) << refusal(p);
  p = simple();
  p.command.clear();
  EXPECT_NE(refusal(p).find("the command is empty"), std::string::npos);
  p = simple();
  p.command.push_back("{nope}");
  EXPECT_NE(refusal(p).find("unknown placeholder {nope}"), std::string::npos) << refusal(p);
  p = simple();
  p.command.push_back("{port}");
  EXPECT_NE(refusal(p).find("{port} is given to a server only"), std::string::npos) << refusal(p);
  p = simple();
  p.command.push_back("{input}");
  EXPECT_NE(refusal(p).find("{input} is used but the program has no input"), std::string::npos);
  p = simple();
  p.input_generator = "nope";
  p.input_file = "x";
  EXPECT_NE(refusal(p).find("unknown input generator 'nope' (accepted: python-churn"), std::string::npos) << refusal(p);
  p = simple();
  p.metrics.push_back({.name = "rps", .regex = "([0-9"});
  EXPECT_NE(refusal(p).find("metric 'rps': '([0-9' is not a regular expression"), std::string::npos) << refusal(p);
  p = simple();
  p.metrics.push_back({.name = "wall_s", .regex = "x"});
  EXPECT_NE(refusal(p).find("is a figure every program record has"), std::string::npos) << refusal(p);
  p = simple();
  p.metrics.push_back({.name = "Bad-Name", .regex = "x"});
  EXPECT_NE(refusal(p).find("metric name 'Bad-Name' is not a lower-case identifier"), std::string::npos) << refusal(p);
  p = simple();
  p.drive = ProgramDrive::server;
  EXPECT_NE(refusal(p).find("a server needs a client"), std::string::npos);
  p.client = {"/bin/true"};
  EXPECT_NE(refusal(p).find("a server needs a way to tell it is up"), std::string::npos);
  p.ready_port = "70000";
  EXPECT_NE(refusal(p).find("ready port '70000' is not 1..65535 or {port}"), std::string::npos);
  p.ready_port = "{port}";
  p.stop = "SIGNOPE";
  EXPECT_NE(refusal(p).find("stop 'SIGNOPE' is not a signal name"), std::string::npos);
  p.stop = "SIGINT";
  EXPECT_EQ(refusal(p), "");
  p = simple();
  p.environment["LD_PRELOAD"] = "x";
  EXPECT_NE(refusal(p).find("LD_PRELOAD is the allocator's"), std::string::npos);
  p = simple();
  p.client = {"/bin/true"};
  EXPECT_NE(refusal(p).find("belongs to a server"), std::string::npos);
}

TEST(ProgramDefinition, PlaceholdersExpand) {
  PlaceholderValues v;
  v.input = "/in/file";
  v.dir = "/in";
  v.threads = 3;
  v.seed = 2147483647ull + 5;
  v.work_percent = 50;
  EXPECT_EQ(expand_placeholders("{input} {dir} {threads} {seed} {seed31} {work:1000} {work:4194304/1024} {{x}}", v),
            "/in/file /in 3 2147483652 6 500 2048 {x}");
  EXPECT_THROW(expand_placeholders("{port}", v), std::invalid_argument);
  v.port = 4242;
  EXPECT_EQ(expand_placeholders("-p {port}", v), "-p 4242");
  EXPECT_EQ(expand_placeholders("{bin:sh}", v), "/usr/bin/sh");
  EXPECT_TRUE(uses_placeholder("x {work:10} y", "work"));
  EXPECT_FALSE(uses_placeholder("x {{work:10}} y", "work"));
  EXPECT_EQ(bin_placeholders("{bin:xz} {bin:gzip}"), (std::vector<std::string>{"xz", "gzip"}));
}

TEST(ProgramDefinition, MetricsReadTheirFigure) {
  const std::string out = "req: 100 rps\nreq: 300 rps\nlatency 2.5 ms\n";
  ProgramMetric m{.name = "rps", .regex = "req: ([0-9.]+) rps"};
  EXPECT_EQ(read_program_metric(m, out), 300.0);  // the last match by default
  m.combine = "first";
  EXPECT_EQ(read_program_metric(m, out), 100.0);
  m.combine = "mean";
  EXPECT_EQ(read_program_metric(m, out), 200.0);
  m.combine = "harmonic-mean";
  EXPECT_DOUBLE_EQ(*read_program_metric(m, out), 2.0 / (1 / 100.0 + 1 / 300.0));
  m.combine = "sum";
  EXPECT_EQ(read_program_metric(m, out), 400.0);
  EXPECT_EQ(read_program_metric({.name = "lat", .regex = "[0-9.]+ ms"}, out), 2.5);  // no group: the whole match's number
  EXPECT_EQ(read_program_metric({.name = "x", .regex = "nothing here ([0-9]+)"}, out), std::nullopt);
  EXPECT_EQ(read_program_metric({.name = "x", .regex = "req: (rps)"}, out), std::nullopt);  // a match that is no number
}

TEST(ProgramDefinition, JsonKeepsEverything) {
  ProgramDefinition p = simple();
  p.drive = ProgramDrive::server;
  p.client = {"/bin/sh", "-c", "load"};
  p.ready_regex = "ready";
  p.stop = "send:QUIT\\r\\n";
  p.metrics.push_back({.name = "rps", .regex = "([0-9]+)", .higher_is_better = false, .combine = "max", .unit = "req/s", .stream = "stderr"});
  p.environment = {{"A", "1"}};
  p.check_output = true;
  p.timeout_s = 9;
  const ProgramDefinition q = program_definition_from_json(to_json(p));
  EXPECT_EQ(to_json(q), to_json(p));
  EXPECT_EQ(q.metrics.at(0).higher_is_better, false);
  EXPECT_THROW(program_definition_from_json({{"drive", "sideways"}}), std::invalid_argument);
}

TEST(ProgramDefinition, SignalNames) {
  EXPECT_EQ(signal_number("SIGTERM"), 15);
  EXPECT_EQ(signal_number("INT"), 2);
  EXPECT_EQ(signal_number("SIGNOPE"), std::nullopt);
}

TEST(ProgramDefinition, MissingProgramsAreNamedWithTheirPackage) {
  ProgramDefinition p = simple();
  p.command = {"no-such-program-of-allocstress"};
  p.package = "some-package";
  EXPECT_EQ(program_unavailable(p).rfind("not installed: no-such-program-of-allocstress from package some-package (looked in ", 0), 0u)
      << program_unavailable(p);
  p.command = {"/bin/sh", "-c", "exec \"$0\"", "{bin:no-such-helper-of-allocstress}"};
  EXPECT_NE(program_unavailable(p).find("not installed: no-such-helper-of-allocstress"), std::string::npos) << program_unavailable(p);
  p.command = {"/nonexistent/tool"};
  EXPECT_EQ(program_unavailable(p), "not found: /nonexistent/tool (no executable file there)");
}

TEST(ShellWords, SplitsLikeAShellWithoutExpansion) {
  EXPECT_EQ(split_shell_words("a  b\tc"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_shell_words("redis-server --save '' --x \"a b\" c\\ d"), (std::vector<std::string>{"redis-server", "--save", "", "--x", "a b", "c d"}));
  EXPECT_EQ(split_shell_words("\"q\\\"uote\" '$HOME'"), (std::vector<std::string>{"q\"uote", "$HOME"}));
  EXPECT_THROW(split_shell_words("'open"), std::invalid_argument);
  EXPECT_THROW(split_shell_words("\"open"), std::invalid_argument);
  EXPECT_THROW(split_shell_words("end\\"), std::invalid_argument);
  EXPECT_TRUE(split_shell_words("   ").empty());
}

}  // namespace
}  // namespace allocstress
