// heaptrack data (zstd or plain text) -> allocstress trace (format and policies: import_heaptrack.hpp).
#include "import_heaptrack.hpp"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string_view>
#include <vector>

#include "trace_writer.hpp"

namespace allocstress::trace {

namespace {

constexpr const char* kAcceptedFile =
    "accepted: a heaptrack data file, heaptrack.NAME.PID.zst as heaptrack 1.x writes it, or its text from `zstd -dc`";
constexpr std::uint32_t kNewestFileVersion = 3;
// Longer lines are strings or stacks (skipped): only their first kMaxLineBytes are looked at.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

[[noreturn]] void fail_at(const std::string& file, std::uint64_t offset, const std::string& what) {
  throw std::runtime_error(file + ": offset " + std::to_string(offset) + ": " + what);
}

// A read-only stream buffer that decompresses zstd frames from `raw` as the reader asks for
// text.  Errors are thrown (std::runtime_error naming the compressed offset); the istream
// reading through it must have exceptions(badbit) set so that they reach the caller.
class ZstdReadBuf : public std::streambuf {
 public:
  ZstdReadBuf(std::istream& raw, std::string file)
      : raw_(raw), file_(std::move(file)), stream_(ZSTD_createDStream()), in_(ZSTD_DStreamInSize()), out_(ZSTD_DStreamOutSize()) {
    if (!stream_) throw std::runtime_error("zstd: cannot create a decompression stream");
  }
  ~ZstdReadBuf() override { ZSTD_freeDStream(stream_); }
  ZstdReadBuf(const ZstdReadBuf&) = delete;
  ZstdReadBuf& operator=(const ZstdReadBuf&) = delete;

 protected:
  int_type underflow() override {
    for (;;) {
      if (input_.pos == input_.size && !output_was_full_) {
        offset_ += input_.size;
        raw_.read(in_.data(), std::streamsize(in_.size()));
        if (raw_.bad()) throw std::runtime_error(file_ + ": read error (" + std::strerror(errno) + ")");
        input_ = ZSTD_inBuffer{in_.data(), std::size_t(raw_.gcount()), 0};
        if (input_.size == 0) {
          if (frame_open_) fail_at(file_, offset_, "file ends inside a zstd frame: cut short (" + std::string(kAcceptedFile) + ")");
          return traits_type::eof();
        }
      }
      ZSTD_outBuffer output{out_.data(), out_.size(), 0};
      const std::size_t ret = ZSTD_decompressStream(stream_, &output, &input_);
      if (ZSTD_isError(ret))
        fail_at(file_, offset_ + input_.pos, std::string("corrupt zstd data: ") + ZSTD_getErrorName(ret) + " (" + kAcceptedFile + ")");
      frame_open_ = ret != 0;
      output_was_full_ = output.pos == output.size;
      if (output.pos > 0) {
        setg(out_.data(), out_.data(), out_.data() + output.pos);
        return traits_type::to_int_type(out_[0]);
      }
    }
  }

 private:
  std::istream& raw_;
  std::string file_;
  ZSTD_DStream* stream_;
  std::vector<char> in_, out_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  std::uint64_t offset_ = 0;  // file offset of in_[0]
  bool frame_open_ = false, output_was_full_ = false;
};

// "heaptrack.NAME.PID.zst" / "heaptrack.NAME.PID" -> PID, else 0.
std::uint32_t pid_from_file_name(const std::filesystem::path& input) {
  std::string name = input.filename().string();
  for (const char* suffix : {".zst", ".gz"})
    if (name.size() > std::strlen(suffix) && name.ends_with(suffix)) name.resize(name.size() - std::strlen(suffix));
  const auto dot = name.rfind('.');
  if (!name.starts_with("heaptrack.") || dot == std::string::npos || dot < std::strlen("heaptrack.")) return 0;
  std::uint32_t pid = 0;
  const char* first = name.data() + dot + 1;
  const char* last = name.data() + name.size();
  const auto [end, ec] = std::from_chars(first, last, pid);
  return ec == std::errc() && end == last && first != last ? pid : 0;
}

class HeaptrackParser {
 public:
  // The writer is created at the first event: its file header holds the command line, which
  // the X line near the top of the input gives.
  HeaptrackParser(std::string file, std::filesystem::path output, bool overwrite, TraceOrigin origin)
      : file_(std::move(file)), output_(std::move(output)), overwrite_(overwrite), origin_(std::move(origin)) {}

  // One line without its newline; `cut` when the line was longer than the part given.
  void line(std::uint64_t line_no, std::string_view text, bool cut) {
    line_no_ = line_no;
    fields_ = text;
    const char kind = text.empty() ? '\0' : text[0];
    if (line_no == 1) return version(kind);
    if (in_command_line_) {  // an argument with newlines: its lines run on until the I line
      if (!is_system_info(text)) {
        command_line_ += "\n" + std::string(text);
        return;
      }
      in_command_line_ = false;
    }
    const bool skipped = kind == '\0' || kind == '#' || kind == 's' || kind == 't' || kind == 'i' || kind == 'I' || kind == 'R' ||
                         kind == 'S' || kind == 'A';
    const bool parsed = kind == 'X' || kind == 'a' || kind == '+' || kind == '-' || kind == 'c';
    if (!skipped && !parsed) unknown(kind);
    if (parsed) {
      if (cut && kind != 'X') fail("longer than " + std::to_string(kMaxLineBytes) + " bytes (accepted: " + kAcceptedLines + ")");
      if (text.size() > 1 && text[1] != ' ') fail(std::string("no space after '") + kind + "' (accepted: " + kAcceptedLines + ")");
      fields_.remove_prefix(std::min<std::size_t>(2, fields_.size()));
    }
    switch (kind) {
      case 'X':
        if (seen_command_line_) fail("a second X (command line) line (accepted: one per file)");
        seen_command_line_ = in_command_line_ = true;
        command_line_ = std::string(fields_);
        return;
      case 'a': {
        const std::uint64_t size = hex("size");
        hex("trace index");
        end_of_line();
        infos_.push_back(Info{size, {}});
        ++result.allocation_infos;
        return;
      }
      case '+': {
        Info& info = info_of(hex("allocation info index"));
        end_of_line();
        info.live.push_back(16 * ++result.allocations);
        emit(TraceOp::malloc, info.live.back(), info.size);
        return;
      }
      case '-': {
        const std::uint64_t index = hex("allocation info index");
        end_of_line();
        Info& info = info_of(index);
        if (info.live.empty())
          fail("'-' of allocation info " + to_hex(index) +
               " that has no live block (accepted: heaptrack_interpret output, which frees only blocks it saw allocated)");
        emit(TraceOp::free, info.live.back(), 0);
        info.live.pop_back();
        ++result.frees;
        return;
      }
      case 'c':
        result.duration_ms = hex("time stamp");
        end_of_line();
        return;
      default:
        ++result.skipped_lines;
    }
  }

  void finish() {
    if (result.file_version == 0) fail_file("empty: no 'v' line (" + std::string(kAcceptedFile) + ")");
    if (in_command_line_) fail_file("no 'I' line after the X line: the command line never ends (heaptrack writes v, X, I first)");
    if (result.allocations == 0) fail_file("no allocations ('+' lines): nothing to import");
    for (const Info& info : infos_) result.never_freed += info.live.size();
    out_->finish();
  }

  HeaptrackImport result;

 private:
  static constexpr const char* kAcceptedLines = "heaptrack 1.x data lines: v X I s t i a + - c R S A #";

  struct Info {
    std::uint64_t size = 0;
    std::vector<std::uint64_t> live;  // synthetic addresses of its live blocks, oldest first
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(file_ + ": line " + std::to_string(line_no_) + ": " + what);
  }
  [[noreturn]] void fail_file(const std::string& what) const { throw std::runtime_error(file_ + ": " + what); }

  static std::string to_hex(std::uint64_t v) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
    return ec == std::errc() ? "0x" + std::string(buf, end) : std::string("?");
  }

  // "I PAGE_SIZE PAGES", the line heaptrack writes right after X.
  static bool is_system_info(std::string_view text) {
    if (!text.starts_with("I ")) return false;
    text.remove_prefix(2);
    const auto space = text.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 == text.size()) return false;
    auto is_hex = [](std::string_view digits) {
      return std::all_of(digits.begin(), digits.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; });
    };
    return is_hex(text.substr(0, space)) && is_hex(text.substr(space + 1));
  }

  // A field as shown in a message: at most 40 bytes, control bytes as '?'.
  static std::string quoted(std::string_view field) {
    std::string out(field.substr(0, 40));
    for (char& ch : out)
      if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
    return "'" + out + (field.size() > 40 ? "...'" : "'");
  }

  [[noreturn]] void unknown(char kind) const {
    if (kind == 'x' || kind == 'm')
      fail(std::string("'") + kind + "' line: raw heaptrack output from before heaptrack_interpret (" + kAcceptedFile + ")");
    std::string shown = std::isprint(static_cast<unsigned char>(kind)) ? std::string(1, kind) : "byte " + to_hex(static_cast<unsigned char>(kind));
    fail("unknown line kind '" + shown + "' (accepted: " + kAcceptedLines + ")");
  }

  void version(char kind) {
    if (kind != 'v' || fields_.size() < 2 || fields_[1] != ' ')
      fail("no 'v HEAPTRACK_VERSION FILE_VERSION' line first: not heaptrack data (" + std::string(kAcceptedFile) + ")");
    fields_.remove_prefix(2);
    hex("heaptrack version");
    const std::uint64_t v = hex("file format version");
    end_of_line();
    if (v < 1 || v > kNewestFileVersion)
      fail("heaptrack file format version " + std::to_string(v) + " (accepted: 1 to " + std::to_string(kNewestFileVersion) + ", heaptrack 1.x)");
    result.file_version = std::uint32_t(v);
  }

  // The next space-separated hexadecimal field of the line.
  std::uint64_t hex(const char* name) {
    const std::size_t length = std::min(fields_.find(' '), fields_.size());
    const std::string_view field = fields_.substr(0, length);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v, 16);
    if (field.empty()) fail(std::string("missing ") + name + " (accepted: " + kAcceptedLines + ")");
    if (ec != std::errc() || end != field.data() + field.size())
      fail(std::string(name) + " " + quoted(field) + " is not a hexadecimal number below 2^64");
    fields_.remove_prefix(std::min(length + 1, fields_.size()));
    return v;
  }

  void end_of_line() const {
    if (!fields_.empty()) fail("unexpected " + quoted(fields_) + " at the end of the line (accepted: " + kAcceptedLines + ")");
  }

  Info& info_of(std::uint64_t index) {
    if (index >= infos_.size())
      fail("allocation info " + to_hex(index) + " not defined (" + std::to_string(infos_.size()) + " 'a' lines before this line)");
    return infos_[std::size_t(index)];
  }

  void emit(TraceOp op, std::uint64_t address, std::uint64_t size) {
    const TraceEvent e = make_event(op, result.events++, address, size);
    if (!out_) {
      if (!command_line_.empty()) origin_.command_line = {command_line_};
      out_ = std::make_unique<TraceWriter>(output_, origin_, overwrite_);
    }
    out_->add(0, 0, e);
  }

  std::string file_;
  std::filesystem::path output_;
  bool overwrite_;
  TraceOrigin origin_;
  std::unique_ptr<TraceWriter> out_;
  std::uint64_t line_no_ = 0;
  std::string_view fields_;  // what is left of the current line
  std::string command_line_;
  bool seen_command_line_ = false, in_command_line_ = false;
  std::vector<Info> infos_;
};

// Feeds `in` line by line to `parser`; lines beyond kMaxLineBytes are passed cut.
void parse_lines(std::istream& in, HeaptrackParser& parser) {
  std::vector<char> buf(kMaxLineBytes + 1);
  for (std::uint64_t line_no = 1;; ++line_no) {
    in.getline(buf.data(), std::streamsize(buf.size()));  // stores at most kMaxLineBytes
    if (in.fail() && in.eof()) return;  // nothing left
    const auto got = std::size_t(in.gcount());
    if (in.fail()) {  // longer line: the rest of it is dropped
      in.clear();
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      parser.line(line_no, std::string_view(buf.data(), got), true);
      if (in.eof()) return;
      continue;
    }
    parser.line(line_no, std::string_view(buf.data(), in.eof() ? got : got - 1), false);  // gcount counts the newline
    if (in.eof()) return;  // last line had no newline
  }
}

}  // namespace

std::string HeaptrackImport::summary() const {
  return std::to_string(events) + " events in 1 thread: " + std::to_string(allocations) + " allocations, " + std::to_string(frees) +
         " frees, " + std::to_string(never_freed) + " blocks never freed, " + std::to_string(allocation_infos) +
         " allocation infos; skipped " + std::to_string(skipped_lines) + " lines (strings, stacks, clock, RSS, comments); heaptrack run " +
         std::to_string(duration_ms) + " ms";
}

HeaptrackImport import_heaptrack(const std::filesystem::path& input, const std::filesystem::path& output, bool overwrite) {
  const std::string file = input.string();
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) throw std::runtime_error(file + ": is a folder (" + std::string(kAcceptedFile) + ")");
  std::ifstream raw(input, std::ios::binary);
  if (!raw) throw std::runtime_error(file + ": cannot open (" + std::strerror(errno) + ")");
  unsigned char magic[4] = {0, 0, 0, 0};
  raw.read(reinterpret_cast<char*>(magic), sizeof magic);
  const std::size_t magic_bytes = std::size_t(raw.gcount());
  raw.clear();
  raw.seekg(0);
  const bool zstd = magic_bytes == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd;
  if (magic_bytes == 0) fail_at(file, 0, std::string("empty file (") + kAcceptedFile + ")");
  if (magic_bytes >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    fail_at(file, 0, std::string("gzip-compressed (older heaptrack): decompress it with `gunzip -k` and import the text (") + kAcceptedFile + ")");
  if (!zstd && !(magic_bytes >= 2 && magic[0] == 'v' && magic[1] == ' '))
    fail_at(file, 0, std::string("neither zstd-compressed nor heaptrack text (no zstd magic, no 'v' line) (") + kAcceptedFile + ")");

  std::unique_ptr<ZstdReadBuf> decompressor;
  if (zstd) decompressor = std::make_unique<ZstdReadBuf>(raw, file);
  std::istream text(zstd ? static_cast<std::streambuf*>(decompressor.get()) : raw.rdbuf());
  text.exceptions(std::ios::badbit);  // lets ZstdReadBuf's errors through

  TraceOrigin origin;
  origin.flags = kFlagImported;
  origin.pid = pid_from_file_name(input);
  HeaptrackParser parser(file, output, overwrite, origin);
  parse_lines(text, parser);
  parser.finish();
  parser.result.compressed = zstd;
  return parser.result;
}

}  // namespace allocstress::trace
