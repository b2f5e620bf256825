// Reading the commands' --format=json documents (cli/Common.h: one object per command, with
// "version"): the parsed document, checked to be of the version the tests know.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace isam::test {

inline nlohmann::json jsonDocument(const std::string &out) {
  nlohmann::json doc = nlohmann::json::parse(out);
  EXPECT_TRUE(doc.is_object()) << out;
  EXPECT_EQ(doc.value("version", 0), 1) << out;
  return doc;
}

// The "instances" of `run`, `schedule` or `tune`: an array, for one instance as for several.
inline nlohmann::json instancesOf(const std::string &out) {
  nlohmann::json doc = jsonDocument(out);
  EXPECT_TRUE(doc.contains("instances") && doc["instances"].is_array()) << out;
  return doc.value("instances", nlohmann::json::array());
}

} // namespace isam::test
