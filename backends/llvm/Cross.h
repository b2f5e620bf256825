// Running a target's code on a machine of another architecture: the instance is compiled to an
// object (emitFile, EmitKind::Object), linked with a small generated C driver by Debian's cross
// compiler, and run under qemu-user (`isamap run --target arm_neon|riscv_rvv ...` on x86-64).
//
// Targets. Any target whose triple's architecture differs from this process's and is one of
//   aarch64  aarch64-linux-gnu-gcc, qemu-aarch64 -L /usr/aarch64-linux-gnu
//   riscv64  riscv64-linux-gnu-gcc, qemu-riscv64 -L /usr/riscv64-linux-gnu
//            -cpu rv64,v=true,vlen=256,elen=64,vext_spec=v1.0 (VLEN 256 bits, the SpacemiT X60's)
//   x86_64   x86_64-linux-gnu-gcc, qemu-x86_64 -L /usr/x86_64-linux-gnu (on a non-x86 host)
// The driver is linked with `-lgomp -lm` from the cross toolchain's sysroot. For riscv64 it
// also defines the half-float conversions (halfFloatHelpersSource) that Debian 12's riscv64
// libgcc lacks, so f16 kernels link.
//
// Tools. The compiler and the emulator are looked up on the PATH; the C library (headers,
// crt1.o, libc.so) and libgomp in the sysroot /usr/<gnu triple>. When one is missing,
// CrossRunner::create fails with a message naming each missing file or program and the Debian
// packages that provide them, and only those (for aarch64, all four are
// `apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgomp1-arm64-cross qemu-user`:
// the C library is only *recommended* by the cross compiler); nothing is written.
//
// Files. Everything (object, driver source, executable, input and output tensors) lives in one
// private temporary directory, removed when the CrossRunner is destroyed.
//
// Protocol with the driver: `prog REPEAT THREADS TIMES_FILE K:PATH...`, one K:PATH per ABI argument
// in order, K being `i` (read before the call), `o` (written after the last call) or `io` (both).
// Each file holds the argument's elements exactly as NativeBuffers stores them (outputs start
// as the 0xFF bytes toNative gives them, so a skipped element is caught). The driver calls
// NAME__args_threads(args, THREADS) REPEAT times and writes each call's wall time in milliseconds,
// one per line, to TIMES_FILE. These times are the emulator's, not the target's: callers must label
// them so. The driver is killed after the options' timeout (600 s). A run that fails says whether
// the emulator exited with a status, was killed by a signal (a crash: "crashed (SIGSEGV,
// Segmentation fault)") or timed out.
#pragma once

#include "backends/llvm/Backend.h"
#include "interp/Interpreter.h"

#include <llvm/Support/Error.h>

#include <memory>
#include <string>
#include <vector>

namespace isam::backend {

// Where CrossRunner::create looks for the tools: the directories of `path` (empty: the PATH)
// for the compiler and the emulator, and <sysrootParent>/<gnu triple> for the sysroot; and how
// long a run may take. Only tests change them.
struct CrossRunnerOptions {
  std::vector<std::string> path;
  std::string sysrootParent = "/usr";
  unsigned timeoutSeconds = 600;
};

// C source defining the half-precision conversions LLVM calls on targets without hardware
// half support (__extendhfsf2, __extendhfdf2, __truncsfhf2, __truncdfhf2; halves as unsigned
// short, rounding to nearest even), for a cross C library that lacks them: the riscv64 driver
// is linked with it. With ISAMAP_HALF_NO_LIBCALLS defined only the static functions
// isamapHalfToFloat and isamapHalfFromDouble are defined (for testing on any host).
std::string halfFloatHelpersSource();

// True when the target names an LLVM triple whose architecture is not this process's.
bool isForeignTarget(const hw::Target &target);

class CrossRunner {
public:
  // Finds the tools for the target's architecture and makes the temporary directory; fails
  // (saying what to install) when a tool is missing or the architecture is not supported.
  static llvm::Expected<std::unique_ptr<CrossRunner>>
  create(const hw::Target &target, const CrossRunnerOptions &options = {});
  ~CrossRunner();
  CrossRunner(const CrossRunner &) = delete;
  CrossRunner &operator=(const CrossRunner &) = delete;

  // Compiles, links and runs one instance on `buffers` (the interpreter's, inputs filled) and
  // reads its outputs back into `buffers`, on `threads` threads (0: the generated code's default,
  // Backend.h). Returns each call's time (emulated, milliseconds).
  llvm::Expected<std::vector<double>> run(const ir::Kernel &kernel,
                                          const schedule::KernelSchedule &schedule,
                                          interp::Buffers &buffers, size_t repeat,
                                          CompileTimes *times = nullptr, unsigned threads = 0);

  // The emulator's name (e.g. "qemu-aarch64"), for labelling the timings.
  const std::string &emulatorName() const { return emulatorName_; }

private:
  CrossRunner() = default;
  hw::Target target_;
  std::string cc_, emulator_, emulatorName_, dir_;
  std::vector<std::string> emulatorArgs_;
  bool halfHelpers_ = false;
  unsigned timeoutSeconds_ = 600;
  int runs_ = 0;
};

} // namespace isam::backend
