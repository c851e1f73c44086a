// The probe log's reader and the probe libraries' location (see program_probe.hpp).
#include "platform/process/program_probe.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

#include "platform/sanitizer_build.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// The next space-separated field of `rest`, removed from it; nullopt when there is none.
std::optional<std::string_view> field(std::string_view& rest) {
  if (rest.empty()) return std::nullopt;
  const std::size_t space = rest.find(' ');
  const std::string_view f = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  if (f.empty()) return std::nullopt;
  return f;
}

std::optional<std::uint64_t> number(std::optional<std::string_view> text) {
  if (!text) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

// A number, or `-` (unknown): nullopt inside; the outer nullopt is a malformed field.
std::optional<std::optional<std::uint64_t>> number_or_dash(std::optional<std::string_view> text) {
  if (text && *text == "-") return std::optional<std::uint64_t>();
  if (const auto v = number(text)) return std::optional<std::uint64_t>(*v);
  return std::nullopt;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A path as the probe wrote it: %XX decoded (anything else kept as is), `-` = unknown ("").
std::string path_field(std::string_view text) {
  if (text == "-") return "";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += char(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

class LogBuilder {
 public:
  // Whether the line was understood.
  bool add(std::string_view line) {
    std::string_view rest = line;
    const auto tag = field(rest);
    if (!tag) return false;
    if (*tag == "start") return start(rest);
    if (*tag == "fork") return forked(rest);
    if (*tag == "exit") return exited(rest);
    return false;
  }
  std::vector<ProbedProcess> take() { return std::move(processes_); }

 private:
  bool start(std::string_view rest) {
    const auto pid = number(field(rest)), ppid = number(field(rest));
    const auto mapped = field(rest), object = field(rest);
    if (!pid || *pid == 0 || !ppid || !mapped || !object || rest.empty()) return false;
    if (*mapped != "0" && *mapped != "1" && *mapped != "-") return false;
    ProbedProcess image;
    image.pid = long(*pid);
    image.ppid = long(*ppid);
    image.started = true;
    if (*mapped != "-") image.allocator_mapped = *mapped == "1";
    image.malloc_object = path_field(*object);
    image.executable = path_field(rest);
    if (ProbedProcess* last = live(image.pid)) {
      if (last->forked) {  // the forked child exec'd: the same entry, now the new image
        *last = std::move(image);
        return true;
      }
      last->replaced_by_exec = true;
    }
    push(std::move(image));
    return true;
  }

  bool forked(std::string_view rest) {
    const auto pid = number(field(rest)), ppid = number(field(rest));
    if (!pid || *pid == 0 || !ppid || !rest.empty()) return false;
    ProbedProcess child;
    child.pid = long(*pid);
    child.ppid = long(*ppid);
    child.forked = true;
    if (const auto parent = last_.find(child.ppid); parent != last_.end()) {
      const ProbedProcess& p = processes_[parent->second];
      child.allocator_mapped = p.allocator_mapped;
      child.malloc_object = p.malloc_object;
      child.executable = p.executable;
    }
    push(std::move(child));
    return true;
  }

  bool exited(std::string_view rest) {
    const auto pid = number(field(rest));
    const auto peak = number_or_dash(field(rest)), calls = number_or_dash(field(rest));
    if (!pid || *pid == 0 || !peak || !calls || !rest.empty()) return false;
    ProbedProcess* p = live(long(*pid));
    if (p == nullptr) {  // no start or fork line: a process made by clone() alone
      ProbedProcess only;
      only.pid = long(*pid);
      push(std::move(only));
      p = &processes_.back();
    }
    p->exited = true;
    p->peak_rss_kib = *peak;
    p->allocation_calls = *calls;
    return true;
  }

  // The pid's last entry if it may still run (no exit line, not replaced by an exec).
  ProbedProcess* live(long pid) {
    const auto it = last_.find(pid);
    if (it == last_.end()) return nullptr;
    ProbedProcess& p = processes_[it->second];
    return p.exited || p.replaced_by_exec ? nullptr : &p;
  }

  void push(ProbedProcess p) {
    last_[p.pid] = processes_.size();
    processes_.push_back(std::move(p));
  }

  std::vector<ProbedProcess> processes_;
  std::map<long, std::size_t> last_;  // pid -> index of its last entry
};

}  // namespace

ProbeLog parse_probe_log(std::string_view text) {
  ProbeLog log;
  LogBuilder builder;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {  // no newline: the writer was cut short
      ++log.malformed_lines;
      break;
    }
    if (!builder.add(text.substr(0, end))) ++log.malformed_lines;
    text.remove_prefix(end + 1);
  }
  log.processes = builder.take();
  return log;
}

std::vector<ProbedProcess> read_probe_log(const fs::path& log, std::size_t* malformed_lines) {
  std::ifstream in(log, std::ios::binary);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  ProbeLog parsed = parse_probe_log(text);
  if (malformed_lines != nullptr) *malformed_lines = parsed.malformed_lines;
  return std::move(parsed.processes);
}

fs::path probe_library(bool counting) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot locate the probe library: /proc/self/exe: " + ec.message());
  const fs::path lib = exe.parent_path() / (counting ? "liballocstress_probe_count.so" : "liballocstress_probe.so");
  if (fs::is_regular_file(lib, ec)) return lib;
#ifdef ALLOCSTRESS_SANITIZED
  const std::string how = " (sanitizer builds have no probe library: real programs run in a release build)";
#else
  const std::string how = " (`cmake --build " + exe.parent_path().string() + " --target allocstress` builds it beside the executable)";
#endif
  throw std::runtime_error("the probe library " + lib.string() + " is missing" + how);
}

}  // namespace allocstress
