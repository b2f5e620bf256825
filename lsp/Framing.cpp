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

ReadResult MessageReader::next() {
  ReadResult r;
  std::optional<size_t> length;
  std::string problem;
  bool any = false;
  bool fieldSeen = false; // a header field began this header part
  bool garbage = false;   // lines that are not header fields came before it
  static constexpr std::string_view kLengthName = "content-length:";
  for (size_t lines = 0;; ++lines) {
    // One header line, up to \r\n.
    std::string line;
    size_t lineBytes = 0, matched = 0; // of kLengthName, case-insensitively
    bool restarted = false;            // "Content-Length:" came after other bytes on the line
    for (;;) {
      std::optional<char> c = get();
      if (!c) {
        r.kind = any ? ReadResult::Kind::Truncated : ReadResult::Kind::End;
        if (any)
          r.problem = "the stream ended inside a message's header";
        return r;
      }
      any = true;
      if (*c == '\n') { // the protocol says \r\n; a bare \n is accepted too
        if (!line.empty() && line.back() == '\r')
          line.pop_back();
        break;
      }
      ++lineBytes;
      if (line.size() < kMaxHeaderLine)
        line.push_back(*c);
      else if (problem.empty())
        problem = "a header line is longer than " + std::to_string(kMaxHeaderLine) + " bytes";
      // 'c' occurs in kLengthName only first, so a mismatch restarts the match at 0 or 1.
      char lc = char(std::tolower(static_cast<unsigned char>(*c)));
      matched = lc == kLengthName[matched] ? matched + 1 : lc == kLengthName[0] ? 1 : 0;
      if (matched == kLengthName.size()) {
        // The last such header on the line is the one just before the next body.
        if (lineBytes > matched) {
          restarted = true;
          line = std::string(kLengthName);
        }
        matched = 0;
      }
    }
    if (restarted) {
      // Everything read so far was not a header; the line from "Content-Length:" on is the
      // next message's. Report the garbage, and read that line again on the next call.
      resume_ = line + "\n";
      r.kind = ReadResult::Kind::BadHeader;
      r.problem = kNotAHeader;
      return r;
    }
    if (!fieldSeen) {
      // A header part starts with a header field. Anything else here is what is left of a
      // message whose Content-Length was too small (or bytes no client should send): skip it
      // up to the next field or empty line, and report it on its own, so that the message
      // after it is read whole.
      if (!line.empty() && !isField(line)) {
        garbage = true;
        continue;
      }
      if (garbage && !line.empty()) {
        resume_ = line + "\n";
        r.kind = ReadResult::Kind::BadHeader;
        r.problem = problem.empty() ? std::string(kNotAHeader) : problem;
        return r;
      }
      fieldSeen = !line.empty();
    }
    if (line.empty())
      break; // the end of the header part
    if (lines >= kMaxHeaderLines && problem.empty())
      problem = "more than " + std::to_string(kMaxHeaderLines) + " header lines";
    auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (problem.empty())
        problem = "a header line has no ':': '" + line.substr(0, 80) + "'";
      continue;
    }
    std::string name = lower(trim(line.substr(0, colon))), value = trim(line.substr(colon + 1));
    if (name != "content-length")
      continue; // Content-Type and anything else: accepted and ignored
    char *end = nullptr;
    errno = 0;
    unsigned long long n = value.empty() ? 0 : std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != 0 || errno || value[0] == '-' || length) {
      if (problem.empty())
        problem = length ? "Content-Length is given twice"
                         : "Content-Length is not a number: '" + value + "'";
      continue;
    }
    length = size_t(n);
  }
  if (garbage && problem.empty())
    problem = kNotAHeader;
  if (!problem.empty() || !length) {
    r.kind = ReadResult::Kind::BadHeader;
    r.problem = problem.empty() ? "the header has no Content-Length" : problem;
    // With a usable length the body can still be skipped, to stay in step.
    if (length && !problem.empty() && *length <= maxBody_ && !skip(*length))
      r.kind = ReadResult::Kind::Truncated;
    return r;
  }
  if (*length > maxBody_) {
    r.kind = skip(*length) ? ReadResult::Kind::TooLarge : ReadResult::Kind::Truncated;
    r.problem = "a message of " + std::to_string(*length) + " bytes is over the " +
                std::to_string(maxBody_) + "-byte limit";
    return r;
  }
  r.body.reserve(*length);
  for (size_t i = 0; i < *length; ++i) {
    std::optional<char> c = get();
    if (!c) {
      r.kind = ReadResult::Kind::Truncated;
      r.problem = "the stream ended after " + std::to_string(i) + " of the " +
                  std::to_string(*length) + " bytes Content-Length announced";
      r.body.clear();
      return r;
    }
    r.body.push_back(*c);
  }
  r.kind = ReadResult::Kind::Message;
  return r;
}

std::string frame(const std::string &body) {
  std::string out = "Content-Length: ";
  out.append(std::to_string(body.size())).append("\r\n\r\n").append(body);
  return out;
}

} // namespace isam::lsp
