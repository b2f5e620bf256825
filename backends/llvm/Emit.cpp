#include "backends/llvm/Emit.h"
#include "source/FileIo.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <chrono>

namespace isam::backend {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Writes through `write` into `path` under the output policy of source/FileIo.h: a regular
// file through a temporary renamed into place only when complete (an error never leaves a
// half-written output), a link, device or FIFO written through. Object code needs a seekable
// stream; for a FIFO it is assembled in memory first.
llvm::Error writeOutput(const std::string &path,
                        const std::function<llvm::Error(llvm::raw_pwrite_stream &)> &write,
                        unsigned mode = 0666) {
  OutputFile out;
  std::string error;
  if (!out.open(path, error, mode))
    return fail(error);
  llvm::Error e = llvm::Error::success();
  {
    llvm::raw_fd_ostream os(out.fd(), /*shouldClose=*/false);
    if (os.supportsSeeking()) {
      e = write(os);
    } else {
      llvm::buffer_ostream buffered(os); // written to `os` when destroyed
      e = write(buffered);
    }
    os.flush();
    if (!e && os.has_error())
      e = fail("cannot write '" + path + "': " + os.error().message());
    os.clear_error();
  }
  if (e)
    return e; // `out` removes its temporary
  if (!out.commit(error))
    return fail(error);
  return llvm::Error::success();
}

llvm::Error machineCode(llvm::Module &module, llvm::TargetMachine &machine,
                        llvm::raw_pwrite_stream &os, llvm::CodeGenFileType type) {
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr, type))
    return fail("LLVM cannot emit this file type for " + machine.getTargetTriple().str());
  pm.run(module);
  return llvm::Error::success();
}

std::string headerGuard(const std::string &path) {
  std::string g = "ISAMAP_" + llvm::sys::path::filename(path).str();
  for (char &c : g)
    c = std::isalnum(static_cast<unsigned char>(c))
            ? char(std::toupper(static_cast<unsigned char>(c)))
            : '_';
  return g;
}

} // namespace

llvm::Error emitFile(EmitKind kind, const hw::Target &target,
                     const std::vector<KernelCode> &kernels, const std::string &path,
                     CompileTimes *times) {
  if (kind == EmitKind::Header) {
    if (auto e = checkSymbols(kernels))
      return e;
    return writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
      os << cHeader(kernels, headerGuard(path));
      return llvm::Error::success();
    });
  }
  CompileTimes local;
  CompileTimes &t = times ? *times : local;
  auto machine = targetMachine(target, /*positionIndependent=*/true);
  if (!machine)
    return machine.takeError();
  if (kind == EmitKind::Shared && llvm::Triple(target.triple).getArch() !=
                                      llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    return fail("a shared library for " + target.triple +
                " needs that platform's linker; emit an object (--emit=obj) and link it there");

  llvm::LLVMContext context;
  auto built = buildModule(context, target, kernels, **machine, t);
  if (!built)
    return built.takeError();
  std::unique_ptr<llvm::Module> module = std::move(*built);
  auto start = std::chrono::steady_clock::now();

  llvm::Error e = llvm::Error::success();
  switch (kind) {
  case EmitKind::LLVM:
    e = writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
      module->print(os, nullptr);
      return llvm::Error::success();
    });
    break;
  case EmitKind::Assembly:
  case EmitKind::Object:
    e = writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
      return machineCode(*module, **machine, os,
                         kind == EmitKind::Object ? llvm::CGFT_ObjectFile
                                                  : llvm::CGFT_AssemblyFile);
    });
    break;
  case EmitKind::Shared: {
    // The object and the library go to temporaries (in TMPDIR, removed however this ends);
    // the system's C compiler driver links them with the OpenMP runtime and libm, and the
    // library is then written to `path` like any output.
    llvm::SmallString<256> objPath, libPath;
    int objFd = -1, libFd = -1;
    if (auto ec = llvm::sys::fs::createTemporaryFile("isamap", "o", objFd, objPath))
      return fail("cannot create a temporary object file: " + ec.message());
    ScopedTemporary obj{std::string(objPath)};
    if (auto ec = llvm::sys::fs::createTemporaryFile("isamap", "so", libFd, libPath)) {
      llvm::sys::Process::SafelyCloseFileDescriptor(objFd);
      return fail("cannot create a temporary library: " + ec.message());
    }
    ScopedTemporary lib{std::string(libPath)};
    llvm::sys::Process::SafelyCloseFileDescriptor(libFd);
    {
      llvm::raw_fd_ostream os(objFd, true);
      e = machineCode(*module, **machine, os, llvm::CGFT_ObjectFile);
    }
    if (e)
      break;
    auto cc = llvm::sys::findProgramByName("cc");
    if (!cc) {
      e = fail("linking a shared library needs a C compiler driver (cc) on the PATH");
      break;
    }
    std::string message;
    llvm::StringRef args[] = {*cc, "-shared", "-o", lib.path(), obj.path(), "-lgomp", "-lm"};
    int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &message);
    if (rc != 0) {
      e = fail("linking " + path + " failed (cc exited with " + llvm::Twine(rc) + ")" +
               (message.empty() ? "" : ": " + message));
      break;
    }
    auto bytes = llvm::MemoryBuffer::getFile(lib.path(), /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes) {
      e = fail("linking " + path + " failed: " + bytes.getError().message());
      break;
    }
    e = writeOutput(
        path,
        [&](llvm::raw_pwrite_stream &os) {
          os << (*bytes)->getBuffer();
          return llvm::Error::success();
        },
        0777);
    break;
  }
  case EmitKind::Header:
    break;
  }
  t.machineCodeMs = msSince(start);
  return e;
}

llvm::Expected<std::string> emitText(EmitKind kind, const hw::Target &target,
                                     const std::vector<KernelCode> &kernels, CompileTimes *times) {
  if (kind != EmitKind::LLVM && kind != EmitKind::Assembly)
    return fail("only LLVM IR and assembly are text");
  CompileTimes local;
  CompileTimes &t = times ? *times : local;
  auto machine = targetMachine(target, /*positionIndependent=*/true);
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  auto built = buildModule(context, target, kernels, **machine, t);
  if (!built)
    return built.takeError();
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  if (kind == EmitKind::LLVM) {
    (*built)->print(os, nullptr);
  } else {
    auto start = std::chrono::steady_clock::now();
    if (auto e = machineCode(**built, **machine, os, llvm::CGFT_AssemblyFile))
      return e;
    t.machineCodeMs = msSince(start);
  }
  return std::string(text.str());
}

} // namespace isam::backend
