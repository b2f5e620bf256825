// `isamap lsp --listen`'s value: the address, the port, and whether only this machine can
// connect (anything else needs --allow-remote).
#include "lsp/Transport.h"

#include <gtest/gtest.h>

using namespace isam::lsp;

namespace {

ListenAddress parsed(const std::string &text) {
  std::string error;
  auto a = parseListenAddress(text, error);
  EXPECT_TRUE(a) << text << ": " << error;
  return a.value_or(ListenAddress{});
}

std::string refused(const std::string &text) {
  std::string error;
  EXPECT_FALSE(parseListenAddress(text, error)) << text;
  return error;
}

} // namespace

TEST(LspListenAddress, LoopbackByDefaultAndInEverySpelling) {
  for (const auto &[text, address, port] : std::vector<std::tuple<std::string, std::string, int>>{
           {"0", "127.0.0.1", 0},
           {"8123", "127.0.0.1", 8123},
           {"localhost:65535", "127.0.0.1", 65535},
           {"127.0.0.1:1", "127.0.0.1", 1},
           {"127.9.8.7:2", "127.9.8.7", 2},
           {"[::1]:3", "::1", 3},
           {"[::ffff:127.0.0.1]:4", "::ffff:127.0.0.1", 4}}) {
    ListenAddress a = parsed(text);
    EXPECT_EQ(a.address, address) << text;
    EXPECT_EQ(a.port, port) << text;
    EXPECT_TRUE(a.loopback) << text;
  }
}

TEST(LspListenAddress, AddressesOtherMachinesReachAreNotLoopback) {
  for (const char *text :
       {"0.0.0.0:0", "[::]:0", "192.168.1.5:80", "[::ffff:0.0.0.0]:1", "[2001:db8::1]:9"})
    EXPECT_FALSE(parsed(text).loopback) << text;
}

TEST(LspListenAddress, MalformedValuesSayWhy) {
  for (const char *text : {"", "x", "1:", ":", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+5",
                           "127.0.0.1: 5", "127.0.0.1:5x", "99999999999999999999"})
    EXPECT_NE(refused(text).find("--listen expects PORT or ADDRESS:PORT"), std::string::npos)
        << text;
  EXPECT_NE(refused("example.com:80").find("'example.com' is not an IP address"),
            std::string::npos);
  EXPECT_NE(refused("::1:80").find("takes brackets"), std::string::npos);
  EXPECT_NE(refused("[1.2.3]:80").find("not an IP address"), std::string::npos);
}
