// CrossRunner::create's preflight against fake toolchains: a PATH directory holding (or not)
// the cross compiler and qemu, and a sysroot directory holding (or not) the C library and
// libgomp. Each missing part is named with the Debian package that provides it, and only the
// missing packages are in the install command.
#include "backends/llvm/Cross.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace isam;
namespace fs = std::filesystem;

namespace {

bool has(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

hw::Target armTarget() {
  hw::Target t;
  t.name = "arm_neon";
  t.triple = "aarch64-unknown-linux-gnu";
  return t;
}

// A fresh directory <tmp>/isamap-preflight-<pid>/<name>, removed by the fixture.
class CrossPreflight : public ::testing::Test {
protected:
  fs::path root = fs::temp_directory_path() / ("isamap-preflight-" + std::to_string(getpid()));
  fs::path bin = root / "bin", usr = root / "usr", sysroot = usr / "aarch64-linux-gnu";

  void SetUp() override {
    fs::remove_all(root);
    fs::create_directories(bin);
    fs::create_directories(sysroot / "include");
    fs::create_directories(sysroot / "lib");
  }
  void TearDown() override { fs::remove_all(root); }

  void touch(const fs::path &file, bool executable = false) {
    std::ofstream(file) << "#!/bin/sh\n";
    if (executable)
      fs::permissions(file, fs::perms::owner_all, fs::perm_options::add);
  }
  void installCompilerAndQemu() {
    touch(bin / "aarch64-linux-gnu-gcc", true);
    touch(bin / "qemu-aarch64", true);
  }
  void installLibc() {
    touch(sysroot / "include" / "stdio.h");
    touch(sysroot / "lib" / "crt1.o");
    touch(sysroot / "lib" / "libc.so");
  }
  void installLibgomp() { touch(sysroot / "lib" / "libgomp.so.1"); }

  // The preflight's error, or "" when it passed.
  std::string preflight() {
    backend::CrossToolSearch where{{bin.string()}, usr.string()};
    auto runner = backend::CrossRunner::create(armTarget(), where);
    if (runner)
      return "";
    return llvm::toString(runner.takeError());
  }
};

} // namespace

TEST_F(CrossPreflight, CompleteToolchainPasses) {
  installCompilerAndQemu();
  installLibc();
  installLibgomp();
  EXPECT_EQ(preflight(), "");
}

TEST_F(CrossPreflight, MissingCLibraryNamesItsPackage) {
  // What `apt-get install --no-install-recommends gcc-aarch64-linux-gnu` leaves: the compiler
  // and libgomp, no C library headers or crt files.
  installCompilerAndQemu();
  installLibgomp();
  std::string err = preflight();
  EXPECT_TRUE(has(err, (sysroot / "include" / "stdio.h").string())) << err;
  EXPECT_TRUE(has(err, (sysroot / "lib" / "crt1.o").string())) << err;
  EXPECT_TRUE(has(err, "Install them with: apt-get install libc6-dev-arm64-cross (")) << err;
  EXPECT_FALSE(has(err, "libgomp")) << err;
  EXPECT_FALSE(has(err, "qemu-aarch64 (not on the PATH)")) << err;
  EXPECT_TRUE(has(err, "arm_neon")) << err;
}

TEST_F(CrossPreflight, HeadersAloneAreNotEnough) {
  installCompilerAndQemu();
  installLibgomp();
  touch(sysroot / "include" / "stdio.h");
  std::string err = preflight();
  EXPECT_FALSE(has(err, "stdio.h")) << err;
  EXPECT_TRUE(has(err, "crt1.o")) << err;
  EXPECT_TRUE(has(err, "libc.so")) << err;
  EXPECT_TRUE(has(err, "apt-get install libc6-dev-arm64-cross (")) << err;
}

TEST_F(CrossPreflight, EveryMissingPartIsNamedOnce) {
  std::string err = preflight();
  for (const char *part :
       {"aarch64-linux-gnu-gcc (not on the PATH)", "qemu-aarch64 (not on the PATH)", "stdio.h",
        "crt1.o", "libc.so", "libgomp.so.1"})
    EXPECT_TRUE(has(err, part)) << part << " in " << err;
  EXPECT_TRUE(has(err, "apt-get install gcc-aarch64-linux-gnu qemu-user libc6-dev-arm64-cross "
                       "libgomp1-arm64-cross ("))
      << err;
}

TEST_F(CrossPreflight, MissingOpenMPRuntimeNamesItsPackage) {
  installCompilerAndQemu();
  installLibc();
  std::string err = preflight();
  EXPECT_TRUE(has(err, "libgomp.so.1 (the OpenMP runtime)")) << err;
  EXPECT_TRUE(has(err, "apt-get install libgomp1-arm64-cross (")) << err;
}
