// Steve ops text -> allocstress trace (format and policies: import_steve.hpp).
#include "import_steve.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace_writer.hpp"

namespace allocstress::trace {

namespace {

constexpr std::size_t kMaxLineBytes = 4096;
constexpr const char* kAcceptedLines = "accepted: HANDLE N ADDRESS SIZE, HANDLE F [ADDRESS [SIZE]], HANDLE L|U, blank or # lines";

struct LiveBlock {
  std::uint64_t address = 0, line = 0;
};

class SteveParser {
 public:
  SteveParser(std::string file, TraceWriter& out) : file_(std::move(file)), out_(out) {}

  void line(std::uint64_t line_no, std::string_view text) {
    line_no_ = line_no;
    check_text(text);
    const std::vector<std::string_view> fields = split(text);
    if (fields.empty() || fields[0].front() == '#') {
      ++result.blank_or_comment_lines;
      return;
    }
    if (fields.size() < 2) fail("1 field (" + std::string(kAcceptedLines) + ")");
    const std::string_view op = fields[1];
    if (op == "N") return add(fields);
    if (op == "F") return release(fields);
    if (op == "L" || op == "U") {
      ++result.lock_unlock_lines;
      return;
    }
    fail("unknown op '" + std::string(op) + "' (accepted: N new, F free, L lock, U unlock)");
  }

  void finish() {
    if (result.allocations == 0) fail_file("no N (new) lines: nothing to import (" + std::string(kAcceptedLines) + ")");
    result.never_freed = live_.size();
  }

  SteveImport result;

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(file_ + ": line " + std::to_string(line_no_) + ": " + what);
  }
  [[noreturn]] void fail_file(const std::string& what) const { throw std::runtime_error(file_ + ": " + what); }

  void check_text(std::string_view text) const {
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x20 && c != '\t' && c != '\r') {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", c);
        fail("not text: byte " + std::string(hex) + " at column " + std::to_string(i + 1) + " (accepted: a Steve ops text file)");
      }
    }
  }

  static std::vector<std::string_view> split(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
      const std::size_t start = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
      if (i > start) fields.push_back(text.substr(start, i - start));
    }
    return fields;
  }

  std::uint64_t number(std::string_view field, const char* name) const {
    int base = 10;
    std::string_view digits = field;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      digits.remove_prefix(2);
    }
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (ec == std::errc::result_out_of_range) fail(std::string(name) + " '" + std::string(field) + "' is too large (accepted: below 2^64)");
    if (ec != std::errc() || end != digits.data() + digits.size())
      fail(std::string(name) + " '" + std::string(field) + "' is not a number (accepted: decimal or 0x-hexadecimal)");
    return v;
  }

  void emit(TraceOp op, std::uint64_t address, std::uint64_t size) {
    out_.add(0, 0, make_event(op, result.events++, address, size));
  }

  void add(const std::vector<std::string_view>& fields) {
    if (fields.size() != 4)
      fail(std::to_string(fields.size()) + " fields in an N line (accepted: HANDLE N ADDRESS SIZE)");
    number(fields[2], "address");
    const std::uint64_t size = number(fields[3], "size");
    const std::string handle(fields[0]);
    const auto [it, inserted] = live_.try_emplace(handle);
    if (!inserted)
      fail("N of handle '" + handle + "' that is still live (new at line " + std::to_string(it->second.line) +
           ", not freed since; accepted: a handle is reused only after its F)");
    it->second = LiveBlock{16 * ++result.allocations, line_no_};
    emit(TraceOp::malloc, it->second.address, size);
  }

  void release(const std::vector<std::string_view>& fields) {
    if (fields.size() > 4) fail(std::to_string(fields.size()) + " fields in an F line (accepted: HANDLE F [ADDRESS [SIZE]])");
    if (fields.size() > 2) number(fields[2], "address");
    if (fields.size() > 3) number(fields[3], "size");
    const auto it = live_.find(std::string(fields[0]));
    if (it == live_.end())
      fail("F of handle '" + std::string(fields[0]) + "' that is not live (never allocated, or already freed; accepted: F of a handle after its N)");
    emit(TraceOp::free, it->second.address, 0);
    ++result.frees;
    live_.erase(it);
  }

  std::string file_;
  TraceWriter& out_;
  std::uint64_t line_no_ = 0;
  std::unordered_map<std::string, LiveBlock> live_;
};

}  // namespace

std::string SteveImport::summary() const {
  return std::to_string(events) + " events in 1 thread: " + std::to_string(allocations) + " allocations, " + std::to_string(frees) +
         " frees, " + std::to_string(never_freed) + " blocks never freed; skipped " + std::to_string(lock_unlock_lines) +
         " lock/unlock lines and " + std::to_string(blank_or_comment_lines) + " blank or comment lines";
}

SteveImport import_steve(const std::filesystem::path& input, const std::filesystem::path& output, bool overwrite) {
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) throw std::runtime_error(input.string() + ": is a folder (accepted: a Steve ops text file)");
  std::ifstream in(input, std::ios::binary);
  if (!in) throw std::runtime_error(input.string() + ": cannot open (" + std::strerror(errno) + ")");
  TraceOrigin origin;
  origin.flags = kFlagImported;
  TraceWriter writer(output, origin, overwrite);
  SteveParser parser(input.string(), writer);
  // istream::getline stores at most buf.size() - 1 bytes: a longer line sets failbit without eofbit.
  std::vector<char> buf(kMaxLineBytes + 1);
  for (std::uint64_t line_no = 1;; ++line_no) {
    in.getline(buf.data(), std::streamsize(buf.size()));
    if (in.bad()) throw std::runtime_error(input.string() + ": read error (" + std::strerror(errno) + ")");
    if (in.fail() && in.eof()) break;  // nothing left
    if (in.fail())
      throw std::runtime_error(input.string() + ": line " + std::to_string(line_no) + ": longer than " + std::to_string(kMaxLineBytes) +
                               " bytes (accepted: a Steve ops text file)");
    const auto got = std::size_t(in.gcount());
    parser.line(line_no, std::string_view(buf.data(), in.eof() ? got : got - 1));  // gcount counts the newline
    if (in.eof()) break;  // last line had no newline
  }
  parser.finish();
  writer.finish();
  return parser.result;
}

}  // namespace allocstress::trace
