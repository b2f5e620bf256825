// GoogleTest's and GoogleMock's probe: a test with a matcher, linked with gtest_main.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

TEST(Probe, Runs) {
  EXPECT_THAT((std::vector<int>{1, 2, 3}), testing::ElementsAre(1, 2, 3));
}
