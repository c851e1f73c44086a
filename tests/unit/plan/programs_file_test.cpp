// Programs files (plan/programs_file.hpp): the shipped one holds the eight prog-* programs as
// their cells have always run them; a user's file is read with its paths taken from its folder;
// every mistake is one line naming the file, the line and what is accepted.
#include "plan/programs_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "cells/workload_registry.hpp"
#include "platform/process/child_process.hpp"
#include "platform/errors.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {
namespace {

namespace fs = std::filesystem;

struct FileInFolder {
  fs::path dir = make_temporary_folder("allocstress-programs-file-test-");
  ~FileInFolder() { fs::remove_all(dir); }
  fs::path write(const std::string& text) {
    const fs::path f = dir / "programs.toml";
    std::ofstream(f) << text;
    return f;
  }
  std::string error(const std::string& text) {
    try {
      read_programs_file(write(text));
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(ProgramsFile, TheShippedFileHoldsTheEightPrograms) {
  const ProgramsFile& f = shipped_programs();
  std::vector<std::string> names;
  for (const ProgramDefinition& p : f.programs) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"prog-python3", "prog-cc1", "prog-sqlite3", "prog-lua", "prog-ghostscript", "prog-redis",
                                             "prog-xz", "prog-rocksdb"}));
  for (const ProgramDefinition& p : f.programs) {
    EXPECT_NO_THROW(check_program_definition(p, p.name));
    EXPECT_EQ(find_workload(p.name), registry_workload("program")) << p.name;
  }
}

// The commands the shipped file gives are those the prog-* cells ran before programs were data.
TEST(ProgramsFile, ShippedCommandsAreTheOnesTheCellsAlwaysRan) {
  const nlohmann::json params = {{"work", 100}, {"program_threads", 2}, {"seed", 1}};
  const nlohmann::json inputs = {{"folder", "/d"}, {"input", "/d/in"}};
  auto command = [&](const std::string& name, std::optional<unsigned> port = std::nullopt) {
    return shell_command_line(program_invocation(*shipped_programs().find(name), params, inputs, port).argv);
  };
  // scripts/setup-deps.sh installs every program: a missing one fails here rather than skipping.
  EXPECT_EQ(command("prog-lua"), program_binary("lua5.4") + " /d/in");
  EXPECT_EQ(command("prog-sqlite3"), program_binary("sqlite3") + " -batch :memory: '.read /d/in'");
  EXPECT_EQ(command("prog-xz"), "/bin/sh -c 'exec \"$0\" -T2 -3 --block-size=512KiB -c \"$1\" > /dev/null' " + program_binary("xz") + " /d/in");
  EXPECT_EQ(command("prog-rocksdb"), program_binary("db_bench") +
                                           " --benchmarks=fillrandom,readrandom --num=100000 --value_size=100 --compression_type=none "
                                           "--disable_wal=1 --threads=2 --seed=2 --db=/d/rocksdb-db --histogram=0 --statistics=0");
  EXPECT_EQ(command("prog-redis", 7000), program_binary("redis-server") +
                                               " --port 7000 --bind 127.0.0.1 --save '' --appendonly no --protected-mode no --dir /d --loglevel warning");
  EXPECT_EQ(program_work_text(*shipped_programs().find("prog-xz"), params), "4096 KiB, -3, 2 threads");
  EXPECT_EQ(program_work_text(*shipped_programs().find("prog-sqlite3"), params), "60000 inserted rows, 120000 orders");
}

TEST(ProgramsFile, AUsersFileWithRelativePaths) {
  FileInFolder f;
  std::ofstream(f.dir / "data.json") << "{}";
  const ProgramsFile file = read_programs_file(f.write(R"(
[[program]]
name = "jq-sort"
command = "jq -c 'sort_by(.id)' {input}"
input = { file = "data.json" }
check_output = true
env = { LC_ALL = "C" }
[[program.metric]]
name = "score"
regex = 'score: ([0-9.]+)'
better = "lower"

[[program]]
name = "server"
drive = "server"
command = ["my-server", "--port", "{port}"]
client = "my-client -p {port} | tail -1"
ready_port = "{port}"
stop = "SIGINT"
)"));
  ASSERT_EQ(file.programs.size(), 2u);
  const ProgramDefinition& jq = file.programs[0];
  EXPECT_EQ(jq.command, (std::vector<std::string>{"jq", "-c", "sort_by(.id)", "{input}"}));
  EXPECT_EQ(jq.input_file, (f.dir / "data.json").string());
  EXPECT_TRUE(jq.check_output);
  EXPECT_EQ(jq.environment.at("LC_ALL"), "C");
  ASSERT_EQ(jq.metrics.size(), 1u);
  EXPECT_FALSE(jq.metrics[0].higher_is_better);
  EXPECT_EQ(jq.origin, "programs file " + (f.dir / "programs.toml").string());
  const ProgramDefinition& server = file.programs[1];
  EXPECT_EQ(server.drive, ProgramDrive::server);
  EXPECT_EQ(server.client, (std::vector<std::string>{"/bin/sh", "-c", "my-client -p {port} | tail -1"}));
  EXPECT_TRUE(is_program_workload("jq-sort"));
}

TEST(ProgramsFile, MistakesNameTheFileLineAndWhatIsAccepted) {
  FileInFolder f;
  const std::string at = "programs file " + (f.dir / "programs.toml").string();
  EXPECT_EQ(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\ncolour = \"red\"\n").rfind(at + ":4: unknown key 'colour' in [[program]] (accepted: name, command", 0), 0u)
      << f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\ncolour = \"red\"\n");
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"\n").find(at + ":"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"\n").find("not TOML"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\n").find("x: no command"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"alloc-test\"\ncommand = [\"true\"]\n").find("is a built-in workload's"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\n[[program]]\nname = \"x\"\ncommand = [\"true\"]\n").find("program 'x' is defined twice"),
            std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\nthreads = 0\n").find(":4: threads must be a whole number in 1..64"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\ncheck_output = \"yes\"\n").find("check_output must be true or false"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = \"a 'b\"\n").find("opens a single quote"), std::string::npos);
  EXPECT_NE(f.error("title = \"t\"\n").find("unknown key 'title' (accepted: [[program]] tables)"), std::string::npos);
  EXPECT_NE(f.error("").find("no [[program]] table"), std::string::npos);
  EXPECT_NE(f.error("[[program]]\nname = \"x\"\ncommand = [\"true\"]\n[[program.metric]]\nname = \"m\"\n").find("needs name and regex"), std::string::npos);
  try {
    read_programs_file(f.dir / "missing.toml");
    FAIL() << "a missing file was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.toml: no such file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace allocstress
