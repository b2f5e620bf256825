#include "backends/llvm/Cross.h"

#include "backends/llvm/Emit.h"
#include "backends/llvm/NativeBuffers.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

namespace isam::backend {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// How to build and run code for one architecture on Debian.
struct Toolchain {
  const char *gnuTriple; // the cross compiler's prefix and the sysroot's name under /usr
  const char *debArch;   // Debian's name of the architecture (libgomp1-<debArch>-cross)
  const char *gccPackage;
  const char *qemu;
  std::vector<std::string> qemuCpu; // extra emulator arguments
  bool halfHelpers = false;         // the driver defines the half-float libcalls
};

std::optional<Toolchain> toolchainFor(llvm::Triple::ArchType arch) {
  switch (arch) {
  case llvm::Triple::aarch64:
    return Toolchain{"aarch64-linux-gnu", "arm64", "gcc-aarch64-linux-gnu", "qemu-aarch64", {}};
  case llvm::Triple::riscv64:
    // VLEN 256 (the SpacemiT X60's); the code needs only Zvl128b, so any VLEN >= 128 would do.
    // Debian 12's riscv64 libgcc (GCC 12) lacks the half-float conversions LLVM calls.
    return Toolchain{"riscv64-linux-gnu",
                     "riscv64",
                     "gcc-riscv64-linux-gnu",
                     "qemu-riscv64",
                     {"-cpu", "rv64,v=true,vlen=256,elen=64,vext_spec=v1.0"},
                     /*halfHelpers=*/true};
  case llvm::Triple::x86_64:
    return Toolchain{"x86_64-linux-gnu", "amd64", "gcc-x86-64-linux-gnu", "qemu-x86_64", {}};
  default:
    return std::nullopt;
  }
}

llvm::Error writeFile(const std::string &path, const void *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char *>(data), std::streamsize(size));
  out.close();
  if (!out)
    return fail("cannot write " + path);
  return llvm::Error::success();
}

llvm::Expected<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The driver: reads each argument's file, calls the kernel REPEAT times on THREADS threads (0:
// the generated code's default), writes the outputs.
std::string driverSource(const std::string &entry, bool halfHelpers) {
  return (halfHelpers ? halfFloatHelpersSource() : std::string()) + R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void )" + entry +
         R"((void *const *args, int threads);

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char *what, const char *path) {
  fprintf(stderr, "driver: %s %s\n", what, path);
  exit(3);
}

int main(int argc, char **argv) {
  if (argc < 4)
    die("usage:", "REPEAT THREADS TIMES_FILE K:PATH...");
  long repeat = atol(argv[1]);
  int threads = atoi(argv[2]);
  int n = argc - 4;
  void **args = calloc((size_t)n + 1, sizeof(void *));
  long *sizes = calloc((size_t)n + 1, sizeof(long));
  for (int i = 0; i < n; ++i) {
    const char *path = strchr(argv[4 + i], ':') + 1;
    FILE *f = fopen(path, "rb");
    if (!f)
      die("cannot open", path);
    fseek(f, 0, SEEK_END);
    sizes[i] = ftell(f);
    fseek(f, 0, SEEK_SET);
    args[i] = malloc((size_t)sizes[i] + 1);
    if (fread(args[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i])
      die("cannot read", path);
    fclose(f);
  }
  FILE *times = fopen(argv[3], "w");
  if (!times)
    die("cannot open", argv[3]);
  for (long r = 0; r < repeat; ++r) {
    double start = nowMs();
    )" + entry +
         R"((args, threads);
    fprintf(times, "%.9g\n", nowMs() - start);
  }
  if (fclose(times) != 0)
    die("cannot write", argv[3]);
  for (int i = 0; i < n; ++i) {
    if (argv[4 + i][0] == 'i' && argv[4 + i][1] == ':')
      continue;
    const char *path = strchr(argv[4 + i], ':') + 1;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(args[i], 1, (size_t)sizes[i], f) != (size_t)sizes[i] || fclose(f) != 0)
      die("cannot write", path);
  }
  return 0;
}
)";
}

// "SIGSEGV, Segmentation fault" for LLVM's description of a death by a signal (strsignal's
// text); the text itself when no signal has it.
std::string signalName(std::string text) {
  const std::string cored = " (core dumped)";
  bool core = text.size() > cored.size() && text.ends_with(cored);
  if (core)
    text.resize(text.size() - cored.size());
  for (int sig = 1; sig < NSIG; ++sig) {
    const char *description = strsignal(sig), *abbrev = sigabbrev_np(sig);
    if (description && abbrev && text == description)
      return std::string("SIG") + abbrev + ", " + text + (core ? cored : "");
  }
  return text + (core ? cored : "");
}

// Runs a program; fails with its exit status (or its signal, or the timeout) and standard
// error when it does not exit 0.
llvm::Error execute(const std::string &program, const std::vector<std::string> &argv,
                    const std::string &errPath, unsigned timeout, const std::string &what) {
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt,
                                                llvm::StringRef(errPath)};
  std::string message;
  bool failedToRun = false;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, timeout, 0, &message,
                                     &failedToRun);
  if (rc == 0)
    return llvm::Error::success();
  std::string stderrText;
  if (auto text = readFile(errPath))
    stderrText = *text;
  else
    llvm::consumeError(text.takeError());
  while (!stderrText.empty() && stderrText.back() == '\n')
    stderrText.pop_back();
  // LLVM returns -2 both for a timeout ("Child timed out") and for a death by a signal
  // (strsignal's text, perhaps with " (core dumped)"): tell them apart.
  std::string why;
  if (failedToRun)
    why = "could not be started" + (message.empty() ? "" : ": " + message);
  else if (rc == -2 && llvm::StringRef(message).starts_with("Child timed out"))
    why = "timed out after " + std::to_string(timeout) + " s";
  else if (rc == -2)
    why = "crashed (" + signalName(message) + ")";
  else
    why =
        "failed (exit status " + std::to_string(rc) + ")" + (message.empty() ? "" : ": " + message);
  return fail(what + " " + why + (stderrText.empty() ? "" : "\n" + stderrText));
}

} // namespace

std::string halfFloatHelpersSource() {
  return R"(/* isamap: IEEE half-precision conversions for a libgcc that lacks them. LLVM 16 passes a
   half as its 16 bits in an integer register when the target has no Zfh, so these take and
   return unsigned short. Rounding is to nearest, ties to even (from a double, directly: no
   double rounding); infinities and subnormals are exact; a NaN stays a NaN of its sign,
   quietened, with its top payload bits. */
#include <string.h>

static float isamapHalfToFloat(unsigned short h) {
  unsigned sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu, bits;
  float f;
  if (exp == 0) { /* zero or subnormal: man * 2^-24 is exact in a float */
    f = (float)man * 0x1p-24f;
    return sign ? -f : f;
  }
  if (exp == 0x1F)
    bits = sign | 0x7F800000u | (man ? 0x400000u | man << 13 : 0u);
  else
    bits = sign | (exp + 112u) << 23 | man << 13;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static unsigned short isamapHalfFromDouble(double d) {
  unsigned long long b, man, sig, q, rem, halfway;
  unsigned short sign;
  unsigned bits;
  int exp, unb, e, shift;
  memcpy(&b, &d, sizeof b);
  sign = (unsigned short)(b >> 48 & 0x8000u);
  exp = (int)(b >> 52 & 0x7FF);
  man = b & 0xFFFFFFFFFFFFFull;
  if (exp == 0x7FF)
    return (unsigned short)(sign | 0x7C00u | (man ? 0x200u | (unsigned)(man >> 42) : 0u));
  if (exp == 0)
    return sign; /* zero, or a double subnormal: far below the smallest half */
  sig = man | 1ull << 52;
  unb = exp - 1023;
  if (unb > 15)
    return (unsigned short)(sign | 0x7C00u);
  /* The value is sig * 2^(unb - 52): count it in steps of the half's unit in the last place,
     2^(e - 10), with e at least the smallest normal exponent so that subnormals come out. */
  e = unb < -14 ? -14 : unb;
  shift = e - unb + 42;
  if (shift > 53)
    return sign; /* under half the smallest subnormal */
  q = sig >> shift;
  rem = sig & ((1ull << shift) - 1);
  halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1)))
    ++q;
  /* A carry out of the significand moves into the exponent by itself; past the largest
     finite half is infinity. */
  bits = ((unsigned)(e + 14) << 10) + (unsigned)q;
  return (unsigned short)(sign | (bits >= 0x7C00u ? 0x7C00u : bits));
}

#ifndef ISAMAP_HALF_NO_LIBCALLS
float __extendhfsf2(unsigned short h) { return isamapHalfToFloat(h); }
double __extendhfdf2(unsigned short h) { return isamapHalfToFloat(h); }
unsigned short __truncsfhf2(float f) { return isamapHalfFromDouble(f); }
unsigned short __truncdfhf2(double d) { return isamapHalfFromDouble(d); }
#endif

)";
}

bool isForeignTarget(const hw::Target &target) {
  if (target.triple.empty())
    return false;
  return llvm::Triple(target.triple).getArch() !=
         llvm::Triple(llvm::sys::getProcessTriple()).getArch();
}

llvm::Expected<std::unique_ptr<CrossRunner>>
CrossRunner::create(const hw::Target &target, const CrossRunnerOptions &options) {
  llvm::Triple want(target.triple), host(llvm::sys::getProcessTriple());
  std::string arch = want.getArchName().str(), hostArch = host.getArchName().str();
  auto tc = toolchainFor(want.getArch());
  if (target.triple.empty() || !tc)
    return fail("cannot run target '" + target.name + "' (" +
                (arch.empty() ? std::string("no LLVM triple") : arch) + ") on this " + hostArch +
                " machine: emulation is supported for aarch64, riscv64 and x86_64 only");
  std::string prefix = tc->gnuTriple, sysroot = options.sysrootParent + "/" + prefix;
  std::string debArch = tc->debArch;
  // What is missing, each with the package that provides it.
  std::vector<std::pair<std::string, std::string>> missing;
  std::vector<llvm::StringRef> searchPath(options.path.begin(), options.path.end());
  auto cc = llvm::sys::findProgramByName(prefix + "-gcc", searchPath);
  if (!cc)
    missing.emplace_back(prefix + "-gcc (not on the PATH)", tc->gccPackage);
  auto qemu = llvm::sys::findProgramByName(tc->qemu, searchPath);
  if (!qemu)
    missing.emplace_back(std::string(tc->qemu) + " (not on the PATH)", "qemu-user");
  // The cross compiler only recommends its C library, so an install without recommends has a
  // compiler that cannot compile the driver ("bits/libc-header-start.h: No such file").
  for (const char *file : {"/include/stdio.h", "/lib/crt1.o", "/lib/libc.so"})
    if (!llvm::sys::fs::exists(sysroot + file))
      missing.emplace_back(sysroot + file + " (the C library)", "libc6-dev-" + debArch + "-cross");
  if (!llvm::sys::fs::exists(sysroot + "/lib/libgomp.so.1"))
    missing.emplace_back(sysroot + "/lib/libgomp.so.1 (the OpenMP runtime)",
                         "libgomp1-" + debArch + "-cross");
  if (!missing.empty()) {
    std::string list, packages;
    std::vector<std::string> named;
    for (const auto &[what, package] : missing) {
      list += (list.empty() ? "" : ", ") + what;
      if (std::find(named.begin(), named.end(), package) == named.end()) {
        named.push_back(package);
        packages += (packages.empty() ? "" : " ") + package;
      }
    }
    return fail("running target '" + target.name + "' (" + arch + ") on this " + hostArch +
                " machine needs a cross compiler, its C library and OpenMP runtime, and "
                "qemu-user; missing: " +
                list + ". Install them with: apt-get install " + packages +
                " (or compile with `isamap compile --target " + target.name + " --emit=obj`)");
  }
  std::unique_ptr<CrossRunner> runner(new CrossRunner());
  runner->target_ = target;
  runner->cc_ = *cc;
  runner->emulator_ = *qemu;
  runner->emulatorName_ = tc->qemu;
  runner->halfHelpers_ = tc->halfHelpers;
  runner->timeoutSeconds_ = options.timeoutSeconds;
  runner->emulatorArgs_ = {"-L", sysroot};
  runner->emulatorArgs_.insert(runner->emulatorArgs_.end(), tc->qemuCpu.begin(), tc->qemuCpu.end());
  llvm::SmallString<256> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("isamap-cross", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  runner->dir_ = std::string(dir);
  return runner;
}

CrossRunner::~CrossRunner() {
  if (!dir_.empty())
    llvm::sys::fs::remove_directories(dir_, /*IgnoreErrors=*/true);
}

llvm::Expected<std::vector<double>> CrossRunner::run(const ir::Kernel &kernel,
                                                     const schedule::KernelSchedule &schedule,
                                                     interp::Buffers &buffers, size_t repeat,
                                                     CompileTimes *times, unsigned threads) {
  std::string base = dir_ + "/k" + std::to_string(runs_++);
  std::string object = base + ".o", source = base + "-driver.c", program = base + "-prog";
  std::string errPath = base + ".stderr", timesPath = base + ".times";
  std::vector<KernelCode> code = {{&kernel, &schedule}};
  if (auto e = emitFile(EmitKind::Object, target_, code, object, times))
    return e;
  std::string entry = symbolName(kernel) + "__args_threads";
  std::string driver = driverSource(entry, halfHelpers_);
  if (auto e = writeFile(source, driver.data(), driver.size()))
    return e;
  if (auto e = execute(cc_, {cc_, "-O2", "-o", program, source, object, "-lgomp", "-lm"}, errPath,
                       120, "linking with " + llvm::sys::path::filename(cc_).str()))
    return e;

  NativeBuffers native = toNative(kernel, buffers);
  std::vector<std::string> argv = {emulator_};
  argv.insert(argv.end(), emulatorArgs_.begin(), emulatorArgs_.end());
  argv.insert(argv.end(), {program, std::to_string(repeat), std::to_string(threads), timesPath});
  std::vector<std::pair<size_t, std::string>> outputs; // tensor index, file
  for (size_t t = 0; t < kernel.tensors.size(); ++t) {
    ir::TensorRole role = kernel.tensors[t].role;
    if (role == ir::TensorRole::Local)
      continue;
    std::string path = base + "-arg" + std::to_string(t) + ".bin";
    if (auto e = writeFile(path, native.storage[t].data(), native.storage[t].size()))
      return e;
    const char *kind = role == ir::TensorRole::Input    ? "i:"
                       : role == ir::TensorRole::Output ? "o:"
                                                        : "io:";
    argv.push_back(kind + path);
    if (role != ir::TensorRole::Input)
      outputs.emplace_back(t, path);
  }
  if (auto e = execute(emulator_, argv, errPath, timeoutSeconds_,
                       "running " + kernel.name + " under " + emulatorName_))
    return e;
  for (const auto &[t, path] : outputs) {
    auto bytes = readFile(path);
    if (!bytes)
      return bytes.takeError();
    if (bytes->size() != native.storage[t].size())
      return fail("the driver wrote " + std::to_string(bytes->size()) + " bytes to " + path +
                  ", expected " + std::to_string(native.storage[t].size()));
    std::copy(bytes->begin(), bytes->end(), native.storage[t].begin());
  }
  fromNative(kernel, native, buffers);
  auto timesText = readFile(timesPath);
  if (!timesText)
    return timesText.takeError();
  std::vector<double> ms;
  std::istringstream in(*timesText);
  for (double v; in >> v;)
    ms.push_back(v);
  if (ms.size() != repeat)
    return fail("the driver reported " + std::to_string(ms.size()) + " timings, expected " +
                std::to_string(repeat));
  // Nothing of this instance is needed any more.
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir_, ec), end; it != end && !ec; it.increment(ec))
    llvm::sys::fs::remove(it->path());
  return ms;
}

} // namespace isam::backend
