// The `allocstress trace` command (see trace_command.hpp).
#include "cli/commands/trace_command.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <set>

#include "cli/name_checks.hpp"
#include "platform/process/child_process.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "run/child_command.hpp"
#include "trace/trace_reader.hpp"
#include "trace/tracer/tracer_config.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = "allocstress trace [--out-prefix PREFIX] [--allocator NAME] [--call-sites] [--level N] -- PROGRAM ARGS...";

// PROGRAM as execvp would find it: a path when it contains '/', else the first match in PATH.
fs::path resolve_program(const std::string& name) {
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (!executable(name)) throw UsageError("trace: program '" + name + "' is not an executable file");
    return fs::absolute(name);
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(end > start ? dirs.substr(start, end - start) : ".") / name;
    if (executable(candidate)) return fs::absolute(candidate);
    start = end + 1;
  }
  throw UsageError("trace: program '" + name + "' not found in PATH (accepted: a program in PATH or a path to an executable file)");
}

// The absolute output prefix; its folder must exist and be writable.
fs::path check_output_prefix(const std::string& out) {
  if (out.empty() || out.back() == '/')
    throw UsageError("trace: --out-prefix takes a file name prefix, not a folder: '" + out + "' (e.g. --out-prefix /tmp/run gives /tmp/run.<pid>.ast)");
  const fs::path prefix = fs::absolute(out);
  std::error_code ec;
  if (fs::is_directory(prefix, ec))
    throw UsageError("trace: --out-prefix " + out + " is a folder; give a file name prefix (e.g. --out-prefix " + (prefix / "run").string() +
                     " gives " + (prefix / "run").string() + ".<pid>.ast)");
  const fs::path folder = prefix.parent_path();
  if (!fs::exists(folder, ec)) throw UsageError("trace: output folder " + folder.string() + " does not exist (--out-prefix " + out + ")");
  if (!fs::is_directory(folder, ec)) throw UsageError("trace: output folder " + folder.string() + " is not a folder (--out-prefix " + out + ")");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw UsageError("trace: output folder " + folder.string() + " is not writable (--out-prefix " + out + ")");
  if (prefix.string().size() > tracer::kMaxPrefixBytes)
    throw UsageError("trace: --out-prefix is longer than " + std::to_string(tracer::kMaxPrefixBytes) + " bytes");
  return prefix;
}

// Trace files of `prefix` in its folder: PREFIX.<pid>.ast and PREFIX.<pid>.<n>.ast.
std::set<fs::path> trace_files(const fs::path& prefix) {
  std::set<fs::path> files;
  const std::string stem = prefix.filename().string() + ".";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(prefix.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > stem.size() + 4 && name.compare(0, stem.size(), stem) == 0 && name.ends_with(".ast") &&
        name.find_first_not_of("0123456789.", stem.size()) == name.size() - 3)
      files.insert(entry.path());
  }
  return files;
}

// Runs argv with `env`, stdio inherited; returns the exit code (128 + signal when killed).
// Like system(), this process ignores SIGINT/SIGQUIT while waiting: Ctrl-C reaches the program,
// and the trace files are still listed afterwards.
int run_traced(const fs::path& program, const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv_strings = args;
  std::vector<char*> argv, envp;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = env;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string path = program.string();

  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    execve(path.c_str(), argv.data(), envp.data());
    const std::string line = "allocstress: error: trace: cannot run " + path + ": " + std::strerror(errno) + "\n";
    [[maybe_unused]] const ssize_t w = ::write(2, line.data(), line.size());
    _exit(127);
  }
  int status = 0;
  if (pid > 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (pid < 0) throw std::runtime_error(std::string("trace: fork failed: ") + std::strerror(errno));
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// One line per trace file: events, threads, pid and how its tracing ended; true when the trace
// was cut short (or cannot be read).
bool report_trace_file(const fs::path& file) {
  try {
    const trace::TraceContents t = trace::read_trace(file);
    const std::string cut = t.cut_short();
    std::cerr << "allocstress: trace: " << file.string() << ": " << t.events() << " events, " << t.threads.size() << " thread"
              << (t.threads.size() == 1 ? "" : "s") << ", pid " << t.header.pid << ", ended by " << t.end_text();
    if (!cut.empty()) std::cerr << "\nallocstress: warning: trace: " << file.string() << ": cut short: " << cut;
    std::cerr << "\n";
    return !cut.empty();
  } catch (const std::exception& e) {
    std::cerr << "allocstress: warning: trace: cut short: " << e.what() << "\n";
    return true;
  }
}

}  // namespace

fs::path find_tracer_library() {
  std::error_code ec;
  const fs::path exe = allocstress_executable();
  const fs::path beside = exe.parent_path() / "liballocstress_trace.so";
  const fs::path installed = exe.parent_path().parent_path() / "lib" / "liballocstress_trace.so";
  for (const fs::path& p : {beside, installed})
    if (fs::is_regular_file(p, ec)) return p;
  throw std::runtime_error("trace: the tracer library is missing: neither " + beside.string() + " nor " + installed.string() +
                           " exists (build the allocstress_trace target, or install)");
}

void TraceCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("trace", "Run a program under the allocation tracer: trace [--out-prefix PREFIX] -- PROGRAM ARGS...");
  cmd->add_option("--out-prefix", out,
                  "Trace file prefix: files PREFIX.<pid>.ast, one per process (default: allocstress-trace in the current folder)");
  cmd->add_option("--out", out_old, "Deprecated: use --out-prefix")->group("Deprecated spellings");
  cmd->add_option("--allocator", allocator, "Run on this drop-in allocator (catalogue name, or NAME=/path/lib.so); default: the program's own");
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_flag("--call-sites", call_sites, "Record each call's return address");
  cmd->add_option("--level", level, "zstd level of the trace blocks, " + std::to_string(tracer::kMinLevel) + ".." +
                                        std::to_string(tracer::kMaxLevel) + " (default " + std::to_string(tracer::kDefaultLevel) + ")");
  // After "--" every word is the program's, options included.
  cmd->add_option("program", program, "The program and its arguments, after --");
}

int TraceCommand::execute() {
  if (warn_if_deprecated(*cmd, "--out", "--out-prefix PREFIX")) out = out_old;
  if (program.empty()) throw UsageError(std::string("trace: no program given (usage: ") + kUsage + ")");
  const bool level_given = cmd->count("--level") > 0;
  if (level_given && (level < tracer::kMinLevel || level > tracer::kMaxLevel))
    throw UsageError("trace: --level " + std::to_string(level) + " is out of range (accepted: " + std::to_string(tracer::kMinLevel) + ".." +
                     std::to_string(tracer::kMaxLevel) + "; negative levels are zstd's fast levels)");
  std::string allocator_preload;
  std::map<std::string, std::string> allocator_settings;  // a configuration's variables
  if (!allocator.empty()) {
    const bool user_library = allocator.find('=') != std::string::npos;
    const AllocatorCatalog catalog = load_catalog(manifest, user_library ? std::vector{allocator} : std::vector<std::string>{});
    const AllocatorSpec* spec = &catalog.find_or_suggest(allocator.substr(0, allocator.find('=')));
    if (spec->kind == AllocatorKind::in_tree)
      throw UsageError("trace: '" + spec->name + "' is an in-tree backend, not a malloc library another program can run on (accepted: drop-in "
                       "allocators, see allocstress list)");
    if (!spec->available()) throw UsageError("trace: allocator '" + spec->name + "' is not installed: " + spec->unavailable_reason);
    allocator_preload = required_preload(*spec);
    allocator_settings = spec->environment;
  }
  const fs::path prefix = check_output_prefix(out);
  const fs::path resolved = resolve_program(program.front());
  const fs::path tracer_library = find_tracer_library();

  std::string preload = tracer_library.string();
  if (!allocator_preload.empty()) preload += ":" + allocator_preload;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0') preload += std::string(":") + existing;
  EnvironmentChanges env;
  for (const auto& [name, value] : allocator_settings) env[name] = value;
  env["LD_PRELOAD"] = preload;
  env["ALLOCSTRESS_TRACE_OUT"] = prefix.string();
  env["ALLOCSTRESS_TRACE_CALL_SITES"] = call_sites ? "1" : "0";
  env["ALLOCSTRESS_TRACE_LEVEL"] = level_given ? std::optional<std::string>(std::to_string(level)) : std::nullopt;

  const std::set<fs::path> before = trace_files(prefix);
  const int code = run_traced(resolved, program, environment_with(env));
  std::vector<fs::path> written;
  for (const fs::path& f : trace_files(prefix))
    if (before.count(f) == 0) written.push_back(f);
  if (written.empty())
    std::cerr << "allocstress: trace: no trace file was written under " << prefix.string()
              << ".* (a statically linked or setuid program ignores LD_PRELOAD; a process killed before its first block "
                 "was written leaves none)\n";
  std::size_t cut = 0;
  for (const fs::path& f : written) cut += report_trace_file(f) ? 1 : 0;
  if (cut > 0 && code == 0) {
    std::cerr << "allocstress: error: trace: " << cut << " of " << written.size() << " trace files were cut short (see the warnings above); exit "
              << kExitTraceCutShort << " although the program exited 0\n";
    return kExitTraceCutShort;
  }
  return code;
}

}  // namespace allocstress
