// `isamap tune` through the real binary: a database written and then used by `schedule`,
// `compile` and `run` (--db or ISAMAP_TUNING_DB), tuned instances skipped until --retune,
// --shard I/N, --merge, the JSON document, and the usage errors (no database, a bad shard, an
// emulated target) with exit 2.
#include "support/JsonOutput.h"
#include "support/TestSupport.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

const std::string kIsamap = ISAMAP_BINARY;
// A measured time as the tuning notes print it (source/Quantities.h): "2.31 ms measured on".
const std::regex kMeasured(R"([0-9.]+ (ns|us|ms|s) measured on )");

const std::string kGemm = "kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
                          "  C[m, n] += A[m, k] * B[k, n];\n"
                          "}\n"
                          "instance first = gemm<37, 45, 29>;\n"
                          "instance second = gemm<20, 33, 17>;\n";

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh database path (no file yet) for one test.
std::string freshDb(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("isamap-tune-cli-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path path = dir / name;
  fs::remove(path);
  return path.string();
}

size_t records(const std::string &db) {
  return nlohmann::json::parse(test::readFile(db)).at("records").size();
}

// `isamap tune` of the instance `first` of `file` on the host, three schedules, into `db`.
test::RunResult tuneFirst(const std::string &file, const std::string &db) {
  return test::run(kIsamap + " tune " + file + " --instance first -t host --trials 3 --db " + db);
}

} // namespace

TEST(TuneCli, ATunedScheduleIsUsedBySchedulingCompilingAndRunning) {
  std::string file = test::tempFile("tune-cli", "gemm.isam", kGemm);
  std::string db = freshDb("used.json");
  auto tuned = tuneFirst(file, db);
  ASSERT_EQ(tuned.exitCode, 0) << tuned.err;
  EXPECT_TRUE(has(tuned.out, "first on host: ")) << tuned.out;
  EXPECT_TRUE(has(tuned.out, " tuned, untuned ")) << tuned.out;
  EXPECT_TRUE(has(tuned.out, "checked against the reference")) << tuned.out;
  EXPECT_TRUE(has(tuned.err, "first [1/")) << "progress on stderr: " << tuned.err;
  ASSERT_EQ(records(db), 1u);

  auto scheduled =
      test::run(kIsamap + " schedule " + file + " --instance first -t host --db " + db);
  ASSERT_EQ(scheduled.exitCode, 0) << scheduled.err;
  EXPECT_TRUE(has(scheduled.out, "\n  tuned: ")) << scheduled.out;
  EXPECT_TRUE(std::regex_search(scheduled.out, kMeasured)) << scheduled.out;
  auto json = test::run(kIsamap + " schedule " + file +
                        " --instance first -t host --format json --db " + db);
  ASSERT_EQ(json.exitCode, 0) << json.err;
  auto search = test::instancesOf(json.out).at(0)["statements"][0]["search"];
  EXPECT_TRUE(std::regex_search(search.value("tuned", ""), kMeasured)) << search.dump();
  EXPECT_EQ(search.value("text", ""), "tuned: " + search.value("tuned", "")) << search.dump();
  // The environment variable names it too; without either, the search decides.
  auto byEnv = test::run("ISAMAP_TUNING_DB=" + db + " " + kIsamap + " schedule " + file +
                         " --instance first -t host");
  EXPECT_TRUE(has(byEnv.out, "\n  tuned: ")) << byEnv.out;
  auto untuned = test::run(kIsamap + " schedule " + file + " --instance first -t host");
  EXPECT_FALSE(has(untuned.out, "tuned: ")) << untuned.out;
  EXPECT_TRUE(has(untuned.out, "search: beam")) << untuned.out;

  auto ran = test::run(kIsamap + " run " + file + " --instance first -t host --check --db " + db);
  EXPECT_EQ(ran.exitCode, 0) << ran.err;
  EXPECT_TRUE(has(ran.out, "PASS")) << ran.out;
  std::string object = freshDb("first.o");
  auto compiled = test::run(kIsamap + " compile " + file + " --instance first -t host -o " +
                            object + " --db " + db);
  EXPECT_EQ(compiled.exitCode, 0) << compiled.err;

  // Tuned once: skipped until --retune.
  auto again =
      test::run(kIsamap + " tune " + file + " --instance first -t host --trials 2 --db " + db);
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_TRUE(has(again.out, "already tuned")) << again.out;
  auto retuned = test::run(kIsamap + " tune " + file +
                           " --instance first -t host --trials 2 --retune --db " + db);
  EXPECT_EQ(retuned.exitCode, 0) << retuned.err;
  EXPECT_TRUE(has(retuned.out, " tuned, untuned ")) << retuned.out;
  EXPECT_EQ(records(db), 1u);
}

TEST(TuneCli, ShardsSplitTheInstancesAndMergeJoinsThem) {
  std::string file = test::tempFile("tune-cli", "gemm.isam", kGemm);
  std::string a = freshDb("shard1.json"), b = freshDb("shard2.json"), merged = freshDb("all.json");
  auto one = test::run(kIsamap + " tune " + file + " -t host --trials 2 --shard 1/2 --db " + a +
                       " --format json");
  ASSERT_EQ(one.exitCode, 0) << one.err;
  auto doc = test::instancesOf(one.out);
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["instance"], "first");
  EXPECT_GT(doc[0]["measuredMs"].get<double>(), 0);
  EXPECT_EQ(doc[0]["trials"][0]["pick"], true);
  auto two = test::run(kIsamap + " tune " + file + " -t host --trials 2 --shard 2/2 --db " + b);
  ASSERT_EQ(two.exitCode, 0) << two.err;
  EXPECT_TRUE(has(two.out, "second on host")) << two.out;
  EXPECT_FALSE(has(two.out, "first on host")) << two.out;

  auto joined = test::run(kIsamap + " tune --merge " + a + " " + b + " -o " + merged);
  ASSERT_EQ(joined.exitCode, 0) << joined.err;
  EXPECT_EQ(records(merged), 2u);
  auto scheduled = test::run(kIsamap + " schedule " + file + " -t host --db " + merged);
  size_t tunedLines = 0;
  for (size_t at = scheduled.out.find("tuned: "); at != std::string::npos;
       at = scheduled.out.find("tuned: ", at + 1))
    ++tunedLines;
  EXPECT_EQ(tunedLines, 2u) << scheduled.out;
}

TEST(TuneCli, UsageErrorsExitTwoAndBadDatabasesOne) {
  std::string file = test::tempFile("tune-cli", "gemm.isam", kGemm);
  auto noDb = test::run("env -u ISAMAP_TUNING_DB " + kIsamap + " tune " + file + " -t host");
  EXPECT_EQ(noDb.exitCode, 2);
  EXPECT_TRUE(has(noDb.err, "name the tuning database with --db PATH or ISAMAP_TUNING_DB"))
      << noDb.err;
  auto badShard =
      test::run(kIsamap + " tune " + file + " -t host --db " + freshDb("x.json") + " --shard 3/2");
  EXPECT_EQ(badShard.exitCode, 2);
  EXPECT_TRUE(has(badShard.err, "--shard expects I/N with 1 <= I <= N, got '3/2'")) << badShard.err;
#if defined(__x86_64__)
  const std::string foreign = "arm_neon";
#else
  const std::string foreign = "x86_avx2";
#endif
  auto emulated =
      test::run(kIsamap + " tune " + file + " -t " + foreign + " --db " + freshDb("y.json"));
  EXPECT_EQ(emulated.exitCode, 2);
  EXPECT_TRUE(has(emulated.err, "emulator")) << emulated.err;
  EXPECT_FALSE(fs::exists(freshDb("y.json")));
  auto noMergeOut = test::run(kIsamap + " tune --merge " + freshDb("z.json"));
  EXPECT_EQ(noMergeOut.exitCode, 2);

  std::string notDb = test::tempFile("tune-cli", "notdb.json", "[1, 2]");
  auto bad = test::run(kIsamap + " schedule " + file + " -t host --db " + notDb);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_TRUE(has(bad.err, "notdb.json: not a tuning database")) << bad.err;
}

TEST(TuneCli, EnoughMeasurementsCorrectTheNumbersTheModelShows) {
  std::string file = test::tempFile("tune-cli", "gemm.isam", kGemm);
  std::string db = freshDb("corrected.json");
  auto tuned = tuneFirst(file, db);
  ASSERT_EQ(tuned.exitCode, 0) << tuned.err;
  auto doc = nlohmann::json::parse(test::readFile(db));
  ASSERT_EQ(doc["features"].size(), doc["records"][0]["samples"][0]["features"].size());
  // Below 24 measurements, no correction; with them (here, one sample repeated, measured at
  // three times the prediction), the other instance's numbers are corrected by them.
  auto few = test::run(kIsamap + " schedule " + file + " --instance second -t host --db " + db);
  EXPECT_FALSE(has(few.out, "corrected")) << few.out;
  nlohmann::json sample = doc["records"][0]["samples"][0];
  sample["measuredMs"] = 3 * sample["predictedMs"].get<double>();
  doc["records"][0]["samples"] = nlohmann::json::array();
  for (int i = 0; i < 30; ++i)
    doc["records"][0]["samples"].push_back(sample);
  std::string many = test::tempFile("tune-cli", "many.json", doc.dump());
  auto plain =
      test::run(kIsamap + " schedule " + file + " --instance second -t host --format json");
  auto corrected = test::run(kIsamap + " schedule " + file +
                             " --instance second -t host --format json --db " + many);
  ASSERT_EQ(corrected.exitCode, 0) << corrected.err;
  auto p = test::instancesOf(plain.out).at(0), c = test::instancesOf(corrected.out).at(0);
  EXPECT_TRUE(has(c["statements"][0]["search"]["text"].get<std::string>(),
                  "; the model corrected by 30 measurements of this machine"))
      << c["statements"][0]["search"].dump();
  EXPECT_GT(c["cycles"].get<double>(), 1.5 * p["cycles"].get<double>());
  EXPECT_EQ(c["tiles"], p["tiles"]) << "the same schedule, other numbers";
}
