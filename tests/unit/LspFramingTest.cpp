// The LSP base protocol's framing: well-formed streams, and every way a stream can be wrong
// (the reader reports it and stays in step with the messages after it).
#include "lsp/Framing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace isam::lsp;
using Kind = ReadResult::Kind;

namespace {

// A reader over a string, handing out at most `chunk` bytes per read (framing must not depend
// on how the stream is cut).
MessageReader over(const std::string &text, size_t chunk = 7, size_t cap = 1 << 20) {
  auto at = std::make_shared<size_t>(0);
  return MessageReader(
      [text, at, chunk](char *buffer, size_t capacity) {
        size_t n = std::min({chunk, capacity, text.size() - *at});
        std::memcpy(buffer, text.data() + *at, n);
        *at += n;
        return n;
      },
      cap);
}

} // namespace

TEST(LspFraming, ReadsMessagesBackToBack) {
  std::string a = R"({"jsonrpc":"2.0","id":1,"method":"initialize"})", b = "{}";
  for (size_t chunk : {1, 3, 64, 4096}) {
    SCOPED_TRACE(chunk);
    MessageReader r = over(frame(a) + frame(b), chunk);
    ReadResult first = r.next();
    ASSERT_EQ(first.kind, Kind::Message) << first.problem;
    EXPECT_EQ(first.body, a);
    ReadResult second = r.next();
    ASSERT_EQ(second.kind, Kind::Message) << second.problem;
    EXPECT_EQ(second.body, b);
    EXPECT_EQ(r.next().kind, Kind::End);
    EXPECT_EQ(r.next().kind, Kind::End);
  }
}

TEST(LspFraming, AcceptsContentTypeCaseAndBareNewlines) {
  MessageReader r = over("content-length:  2 \r\nContent-Type: application/vscode-jsonrpc; "
                         "charset=utf-8\r\n\r\n[]"
                         "Content-Length: 4\n\nnull");
  ReadResult a = r.next(), b = r.next();
  ASSERT_EQ(a.kind, Kind::Message) << a.problem;
  EXPECT_EQ(a.body, "[]");
  ASSERT_EQ(b.kind, Kind::Message) << b.problem;
  EXPECT_EQ(b.body, "null");
}

TEST(LspFraming, BodyBytesAreCountedNotCharacters) {
  std::string body = "{\"text\":\"\xC3\xA9\xF0\x9F\x98\x80\"}"; // é and an emoji: 6 bytes
  MessageReader r = over(frame(body) + frame("1"));
  ReadResult a = r.next();
  ASSERT_EQ(a.kind, Kind::Message);
  EXPECT_EQ(a.body, body);
  EXPECT_EQ(r.next().body, "1");
}

TEST(LspFraming, MissingOrBadContentLengthIsReportedAndTheNextMessageRead) {
  for (const std::string &bad :
       {std::string("Content-Type: x\r\n\r\n"), std::string("Content-Length: abc\r\n\r\n"),
        std::string("Content-Length: -5\r\n\r\n"), std::string("no colon here\r\n\r\n")}) {
    SCOPED_TRACE(bad);
    MessageReader r = over(bad + frame("{}"));
    ReadResult a = r.next();
    EXPECT_EQ(a.kind, Kind::BadHeader);
    EXPECT_FALSE(a.problem.empty());
    ReadResult b = r.next();
    ASSERT_EQ(b.kind, Kind::Message) << b.problem;
    EXPECT_EQ(b.body, "{}");
  }
}

TEST(LspFraming, AProblemWithAUsableLengthSkipsThatBody) {
  // Content-Length twice: the message is refused, its body skipped, the next one read.
  MessageReader r = over("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + frame("[1]"));
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, Kind::BadHeader);
  EXPECT_NE(a.problem.find("twice"), std::string::npos) << a.problem;
  ReadResult b = r.next();
  ASSERT_EQ(b.kind, Kind::Message) << b.problem;
  EXPECT_EQ(b.body, "[1]");
}

TEST(LspFraming, OversizedBodiesAreSkipped) {
  std::string big(5000, 'x');
  MessageReader r = over(frame(big) + frame("{}"), 7, /*cap=*/4096);
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, Kind::TooLarge);
  EXPECT_TRUE(a.body.empty());
  EXPECT_NE(a.problem.find("5000"), std::string::npos) << a.problem;
  ReadResult b = r.next();
  ASSERT_EQ(b.kind, Kind::Message) << b.problem;
  EXPECT_EQ(b.body, "{}");
}

TEST(LspFraming, AStreamEndingInsideAMessageIsTruncated) {
  EXPECT_EQ(over("Content-Len").next().kind, Kind::Truncated);
  EXPECT_EQ(over("Content-Length: 10\r\n\r\n{\"a\"").next().kind, Kind::Truncated);
  ReadResult r = over("Content-Length: 10\r\n\r\n{\"a\"").next();
  EXPECT_TRUE(r.body.empty());
  EXPECT_NE(r.problem.find("4 of the 10"), std::string::npos) << r.problem;
  EXPECT_EQ(over("").next().kind, Kind::End);
}

TEST(LspFraming, EndlessHeaderLinesAreBounded) {
  // A megabyte without a newline and then a real message: reported, then read.
  MessageReader r = over(std::string(1 << 20, 'h') + "\r\n\r\n" + frame("{}"), 65536);
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, Kind::BadHeader);
  EXPECT_NE(a.problem.find("longer than"), std::string::npos) << a.problem;
  EXPECT_EQ(r.next().body, "{}");
}

TEST(LspFraming, FrameWritesTheLengthInBytes) {
  EXPECT_EQ(frame("{}"), "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(frame("\xC3\xA9"), "Content-Length: 2\r\n\r\n\xC3\xA9");
}

TEST(LspFraming, TooLargeContentLengthLosesOnlyTheNextMessage) {
  // The first message announces more bytes than it has: it swallows the start of the second, whose
  // rest runs into the third's header. The reader finds the third's Content-Length within the
  // garbage and reads it whole.
  std::string first = "{\"a\":1}";
  std::string stream = "Content-Length: " + std::to_string(first.size() + 10) + "\r\n\r\n" + first +
                       frame("{\"b\":2}") + frame("{\"c\":3}") + frame("{\"d\":4}");
  for (size_t chunk : {1, 7, 4096}) {
    MessageReader reader = over(stream, chunk);
    std::vector<std::string> bodies;
    for (ReadResult r = reader.next(); r.kind != Kind::End; r = reader.next())
      if (r.kind == Kind::Message)
        bodies.push_back(r.body);
    ASSERT_GE(bodies.size(), 2u) << "chunk " << chunk;
    EXPECT_EQ(bodies[bodies.size() - 2], "{\"c\":3}") << "chunk " << chunk;
    EXPECT_EQ(bodies.back(), "{\"d\":4}") << "chunk " << chunk;
  }
}

TEST(LspFraming, TooSmallContentLengthLosesOnlyThatMessage) {
  // The first message announces 5 bytes fewer than it has; its last bytes, ending in a line
  // break, come where the next header should. They are reported once, and the next message is
  // read whole (it used to be skipped as the body of a header part with a bad line).
  for (const std::string &first :
       {std::string("{\"a\":\"bcdef\"}\r\n"), std::string("{\"a\":\n \"bcdef\"}\n"),
        std::string("{\"a\":1, \"b\":\"x\"}\r\n\r\n"), std::string("{\"a\":\"bcdef\"}")}) {
    std::string stream = "Content-Length: " + std::to_string(first.size() - 5) + "\r\n\r\n" +
                         first + frame("{\"b\":2}") + frame("{\"c\":3}");
    for (size_t chunk : {1, 7, 4096}) {
      SCOPED_TRACE(first + " in chunks of " + std::to_string(chunk));
      MessageReader reader = over(stream, chunk);
      std::vector<std::string> bodies;
      size_t bad = 0;
      for (ReadResult r = reader.next(); r.kind != Kind::End; r = reader.next()) {
        ASSERT_NE(r.kind, Kind::Truncated) << r.problem;
        if (r.kind == Kind::Message)
          bodies.push_back(r.body);
        else
          ++bad;
      }
      ASSERT_EQ(bodies.size(), 3u);
      EXPECT_EQ(bodies[0], first.substr(0, first.size() - 5));
      EXPECT_EQ(bodies[1], "{\"b\":2}");
      EXPECT_EQ(bodies[2], "{\"c\":3}");
      EXPECT_EQ(bad, 1u);
    }
  }
}

TEST(LspFraming, LinesBeforeTheFirstHeaderFieldAreSkippedAndReportedOnce) {
  MessageReader r = over("garbage\r\n\"}}\r\nstill: not\" a field\r\n" + frame("{}"));
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, Kind::BadHeader);
  EXPECT_NE(a.problem.find("not a message header"), std::string::npos) << a.problem;
  ReadResult b = r.next();
  ASSERT_EQ(b.kind, Kind::Message) << b.problem;
  EXPECT_EQ(b.body, "{}");
  EXPECT_EQ(r.next().kind, Kind::End);
}
