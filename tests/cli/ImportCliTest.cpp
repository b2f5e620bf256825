// Imports through the real binary: a file that is not an isam file is one located error that
// never shows its content, for every command that loads files.
#include "support/TestSupport.h"

#include <gtest/gtest.h>

using namespace isam;

namespace {

const std::string kIsamap = ISAMAP_BINARY;
const std::string kSecret = "root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n";

} // namespace

TEST(ImportCli, AFileThatIsNotIsamIsNeverShown) {
  std::string shadow = test::tempFile("import-cli", "shadow", kSecret);
  test::tempFile("import-cli", "shadow.isam", kSecret);
  std::string main = test::tempFile(
      "import-cli", "main.isam",
      "import \"" + shadow +
          "\";\nimport \"shadow.isam\";\n"
          "kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\ninstance x = k<4>;\n");
  for (const char *command : {"check", "check --format=json", "dump-ir", "map --target x86_avx2"}) {
    SCOPED_TRACE(command);
    auto r = test::run(kIsamap + " " + command + " " + main);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    std::string all = r.out + r.err;
    EXPECT_NE(all.find("is not an isam file: an import names a file ending in .isam"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("'shadow.isam' is not an isam file: it does not begin with a declaration"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("E0605"), std::string::npos) << all;
    for (const char *leak : {"root", "SECRET", "daemon"})
      EXPECT_EQ(all.find(leak), std::string::npos) << leak << " in:\n" << all;
  }
  // Located at the import, as every error is.
  auto r = test::run(kIsamap + " check " + main);
  EXPECT_NE(r.err.find(main + ":2:8: error[E0605]"), std::string::npos) << r.err;
}
