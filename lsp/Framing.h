// The Language Server Protocol's base protocol: messages framed by a header part (`Content-Length:
// N`, optionally `Content-Type`, each line ending in \r\n, then an empty line) and a body of N
// bytes of UTF-8 JSON.
//
// The reader never trusts its input: a header part without a valid Content-Length, a header part
// or body over the size cap, or a stream that ends inside a message gives an error result
// saying which, and (except at the end of the stream) leaves the reader at the start of the next
// message, so that the server can answer with a JSON-RPC error and keep serving.
//
// A wrong Content-Length leaves the reader inside a message's bytes, and it resynchronises on the
// next header, reporting what it skipped as a bad header (one result) before reading on:
// - Too large: the reader takes the start of the next message as body bytes; what is left of
//   that message then runs, often without a line break, into the header of the one after it. So
//   "Content-Length:" in the middle of a header line starts a new header part.
// - Too small: the rest of the body comes where a header should. A header part starts with a
//   header field (`Name: value`, the name a token); lines before the first one are skipped, up
//   to that field (where the next message's header starts) or an empty line.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace isam::lsp {

struct ReadResult {
  enum class Kind {
    Message,   // `body` holds one message's content
    End,       // the stream ended between messages
    BadHeader, // no usable Content-Length (the header part was skipped)
    TooLarge,  // the announced body exceeds the cap (it was skipped)
    Truncated, // the stream ended inside a message
  };
  Kind kind = Kind::End;
  std::string body;
  std::string problem; // for errors: what was wrong, for a log message
};

class MessageReader {
public:
  // `read(buffer, capacity)` returns the bytes it put in `buffer`, 0 at the end of the stream.
  using Source = std::function<size_t(char *buffer, size_t capacity)>;

  explicit MessageReader(Source source, size_t maxBodyBytes = 64 << 20)
      : source_(std::move(source)), maxBody_(maxBodyBytes) {}

  ReadResult next();

private:
  struct HeaderPart; // what the header lines said so far
  struct HeaderLine;

  std::optional<char> get();
  bool skip(size_t bytes);
  std::optional<ReadResult> readHeaderPart(HeaderPart &header);
  std::optional<HeaderLine> readHeaderLine(HeaderPart &header);
  ReadResult resynchronise(const std::string &line, const std::string &problem);
  ReadResult rejectHeader(const HeaderPart &header);
  ReadResult readBody(size_t length);

  Source source_;
  size_t maxBody_;
  std::string buffer_;
  size_t at_ = 0;
  bool ended_ = false;
  std::string resume_; // a header line found after garbage: read before the source's bytes
};

// One message, framed: the header part and `body`.
std::string frame(const std::string &body);

} // namespace isam::lsp
