#include "lsp/Framing.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace isam::lsp {

namespace {

constexpr size_t kMaxHeaderLine = 1024; // longer header lines are not the protocol's
constexpr size_t kMaxHeaderLines = 16;

constexpr const char *kNotAHeader =
    "skipped bytes that are not a message header (was the previous message's Content-Length "
    "wrong?)";

// `Name: value`, the name an HTTP token (letters, digits and !#$%&'*+-.^_`|~).
bool isField(const std::string &line) {
  auto colon = line.find(':');
  if (colon == 0 || colon == std::string::npos)
    return false;
  return std::all_of(line.begin(), line.begin() + long(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

} // namespace

std::optional<char> MessageReader::get() {
  if (!resume_.empty()) {
    char c = resume_.front();
    resume_.erase(0, 1);
    return c;
  }
  if (at_ == buffer_.size()) {
    if (ended_)
      return std::nullopt;
    buffer_.resize(64 << 10);
    size_t n = source_(buffer_.data(), buffer_.size());
    buffer_.resize(n);
    at_ = 0;
    if (n == 0) {
      ended_ = true;
      return std::nullopt;
    }
  }
  return buffer_[at_++];
}

bool MessageReader::skip(size_t bytes) {
  for (; bytes > 0; --bytes)
    if (!get())
      return false;
  return true;
}

struct MessageReader::HeaderPart {
  std::optional<size_t> length;
  std::string problem;  // the first thing wrong with it, if any
  bool started = false; // bytes of this message were read (the stream did not end before it)
  bool garbage = false; // lines that are not header fields came before the first field
};

struct MessageReader::HeaderLine {
  std::string text;       // without its \r\n, cut at kMaxHeaderLine bytes
  bool restarted = false; // "Content-Length:" came after other bytes on the line
};

namespace {

constexpr std::string_view kLengthName = "content-length:";

// Reads a header field into the header part; only Content-Length matters, once.
void readField(const std::string &line, std::optional<size_t> &length, std::string &problem) {
  auto colon = line.find(':');
  if (colon == std::string::npos) {
    if (problem.empty())
      problem = "a header line has no ':': '" + line.substr(0, 80) + "'";
    return;
  }
  std::string name = lower(trim(line.substr(0, colon))), value = trim(line.substr(colon + 1));
  if (name != "content-length")
    return; // Content-Type and anything else: accepted and ignored
  char *end = nullptr;
  errno = 0;
  unsigned long long bytes = value.empty() ? 0 : std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || *end != 0 || errno || value[0] == '-' || length) {
    if (problem.empty())
      problem = length ? "Content-Length is given twice"
                       : "Content-Length is not a number: '" + value + "'";
    return;
  }
  length = size_t(bytes);
}

} // namespace

// One header line, up to \r\n; nothing at the end of the stream.
std::optional<MessageReader::HeaderLine> MessageReader::readHeaderLine(HeaderPart &header) {
  HeaderLine line;
  size_t lineBytes = 0, matched = 0; // of kLengthName, case-insensitively
  for (;;) {
    std::optional<char> c = get();
    if (!c)
      return std::nullopt;
    header.started = true;
    if (*c == '\n') { // the protocol says \r\n; a bare \n is accepted too
      if (!line.text.empty() && line.text.back() == '\r')
        line.text.pop_back();
      return line;
    }
    ++lineBytes;
    if (line.text.size() < kMaxHeaderLine)
      line.text.push_back(*c);
    else if (header.problem.empty())
      header.problem = "a header line is longer than " + std::to_string(kMaxHeaderLine) + " bytes";
    // 'c' occurs in kLengthName only first, so a mismatch restarts the match at 0 or 1.
    char lc = char(std::tolower(static_cast<unsigned char>(*c)));
    matched = lc == kLengthName[matched] ? matched + 1 : lc == kLengthName[0] ? 1 : 0;
    if (matched == kLengthName.size()) {
      // The last such header on the line is the one just before the next body.
      if (lineBytes > matched) {
        line.restarted = true;
        line.text = std::string(kLengthName);
      }
      matched = 0;
    }
  }
}

// Everything read so far was not a header; `line` is the next message's first. Report what
// was skipped, and read that line again on the next call.
ReadResult MessageReader::resynchronise(const std::string &line, const std::string &problem) {
  resume_ = line + "\n";
  ReadResult result;
  result.kind = ReadResult::Kind::BadHeader;
  result.problem = problem;
  return result;
}

// Reads header lines up to the empty line that ends them, into `header`. Returns the result
// to give instead of a message when the stream ends or the reader resynchronises.
std::optional<ReadResult> MessageReader::readHeaderPart(HeaderPart &header) {
  bool fieldSeen = false; // a header field began this header part
  for (size_t lines = 0;; ++lines) {
    std::optional<HeaderLine> line = readHeaderLine(header);
    if (!line) {
      ReadResult result;
      result.kind = header.started ? ReadResult::Kind::Truncated : ReadResult::Kind::End;
      if (header.started)
        result.problem = "the stream ended inside a message's header";
      return result;
    }
    if (line->restarted)
      return resynchronise(line->text, kNotAHeader);
    if (!fieldSeen) {
      // A header part starts with a header field. Anything else here is what is left of a
      // message whose Content-Length was too small (or bytes no client should send): skip it
      // up to the next field or empty line, and report it on its own, so that the message
      // after it is read whole.
      if (!line->text.empty() && !isField(line->text)) {
        header.garbage = true;
        continue;
      }
      if (header.garbage && !line->text.empty())
        return resynchronise(line->text,
                             header.problem.empty() ? std::string(kNotAHeader) : header.problem);
      fieldSeen = !line->text.empty();
    }
    if (line->text.empty())
      return std::nullopt; // the end of the header part
    if (lines >= kMaxHeaderLines && header.problem.empty())
      header.problem = "more than " + std::to_string(kMaxHeaderLines) + " header lines";
    readField(line->text, header.length, header.problem);
  }
}

// A header part with a problem or without a Content-Length: reported, and with a usable
// length its body is skipped, to stay in step.
ReadResult MessageReader::rejectHeader(const HeaderPart &header) {
  ReadResult result;
  result.kind = ReadResult::Kind::BadHeader;
  result.problem = header.problem.empty() ? "the header has no Content-Length" : header.problem;
  if (header.length && !header.problem.empty() && *header.length <= maxBody_ &&
      !skip(*header.length))
    result.kind = ReadResult::Kind::Truncated;
  return result;
}

ReadResult MessageReader::readBody(size_t length) {
  ReadResult result;
  result.body.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    std::optional<char> c = get();
    if (!c) {
      result.kind = ReadResult::Kind::Truncated;
      result.problem = "the stream ended after " + std::to_string(i) + " of the " +
                       std::to_string(length) + " bytes Content-Length announced";
      result.body.clear();
      return result;
    }
    result.body.push_back(*c);
  }
  result.kind = ReadResult::Kind::Message;
  return result;
}

ReadResult MessageReader::next() {
  HeaderPart header;
  if (std::optional<ReadResult> instead = readHeaderPart(header))
    return *instead;
  if (header.garbage && header.problem.empty())
    header.problem = kNotAHeader;
  if (!header.problem.empty() || !header.length)
    return rejectHeader(header);
  if (*header.length > maxBody_) {
    ReadResult result;
    result.kind = skip(*header.length) ? ReadResult::Kind::TooLarge : ReadResult::Kind::Truncated;
    result.problem = "a message of " + std::to_string(*header.length) + " bytes is over the " +
                     std::to_string(maxBody_) + "-byte limit";
    return result;
  }
  return readBody(*header.length);
}

std::string frame(const std::string &body) {
  std::string out = "Content-Length: ";
  out.append(std::to_string(body.size())).append("\r\n\r\n").append(body);
  return out;
}

} // namespace isam::lsp
