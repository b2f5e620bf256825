// The language server's JSON-RPC layer on hostile messages: nesting is bounded before anything
// recursive sees the message, and the server answers and keeps serving.
#include "lsp/Rpc.h"
#include "lsp/Server.h"

#include <gtest/gtest.h>

#include <mutex>

using namespace isam::lsp;

namespace {

std::string nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

int parseErrorCode(const std::string &body) {
  try {
    parseMessage(body);
  } catch (const RpcError &e) {
    return e.code;
  }
  return 0;
}

} // namespace

TEST(LspRpc, NestingIsBoundedBeforeParsing) {
  EXPECT_EQ(parseMessage(nested(kMaxJsonDepth)).size(), 1u);
  EXPECT_EQ(parseErrorCode(nested(kMaxJsonDepth + 1)), ParseError);
  try {
    parseMessage(nested(200000));
    FAIL() << "200,000 levels were accepted";
  } catch (const RpcError &e) {
    EXPECT_EQ(e.code, ParseError);
    EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxJsonDepth) + " levels"),
              std::string::npos)
        << e.what();
  }
  // Objects count as arrays do; an unbalanced text is bounded just the same.
  std::string objects;
  for (size_t i = 0; i <= kMaxJsonDepth; ++i)
    objects += "{\"a\":";
  EXPECT_EQ(parseErrorCode(objects), ParseError);
  EXPECT_EQ(parseErrorCode(std::string(300000, '[')), ParseError);
}

TEST(LspRpc, BracketsInsideStringsAreNotNesting) {
  std::string deepText = "{\"text\": \"" + std::string(100000, '[') + "\\\"" +
                         std::string(100000, '{') + "\\\\\", \"n\": [[1]]}";
  json j = parseMessage(deepText);
  EXPECT_EQ(j["text"].get<std::string>().size(), 200002u);
  EXPECT_EQ(j["n"][0][0], 1);
  // Closing brackets in strings do not lower the depth either.
  std::string hidden = "[\"" + std::string(1000, ']') + "\"," + nested(kMaxJsonDepth) + "]";
  EXPECT_EQ(parseErrorCode(hidden), ParseError);
  EXPECT_EQ(parseErrorCode("[1, 2"), ParseError);
}

TEST(LspServer, AnswersADeeplyNestedMessageAndKeepsServing) {
  std::mutex mutex;
  std::vector<json> sent;
  {
    Server server([&](const std::string &body) {
      std::lock_guard lock(mutex);
      sent.push_back(json::parse(body));
    });
    // 400 KB: a request whose params nest 200,000 arrays (this overflowed the stack).
    std::string deep =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"x\":" +
        nested(200000) + "}}";
    EXPECT_TRUE(server.receive(deep));
    EXPECT_TRUE(server.receive(
        R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}})"));
    EXPECT_FALSE(server.receive(R"({"jsonrpc":"2.0","method":"exit"})"));
  }
  std::lock_guard lock(mutex);
  ASSERT_GE(sent.size(), 2u);
  EXPECT_TRUE(sent[0]["id"].is_null());
  EXPECT_EQ(sent[0]["error"]["code"], ParseError);
  EXPECT_NE(sent[0]["error"]["message"].get<std::string>().find("256 levels"), std::string::npos);
  EXPECT_EQ(sent[1]["id"], 2);
  EXPECT_TRUE(sent[1].contains("result"));
}
