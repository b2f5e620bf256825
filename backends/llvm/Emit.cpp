#include "backends/llvm/Emit.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/FileSystem.h>
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

// A temporary file beside `path` (so that the final rename stays within one file system).
llvm::Expected<std::string> temporaryBeside(const std::string &path, int &fd) {
  llvm::SmallString<256> tmp;
  if (auto ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, tmp))
    return fail("cannot write " + path + ": " + ec.message());
  return std::string(tmp);
}

llvm::Error commit(const std::string &tmp, const std::string &path) {
  if (auto ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return fail("cannot write " + path + ": " + ec.message());
  }
  return llvm::Error::success();
}

// Writes through `write` into a temporary and renames it to `path` if all went well.
llvm::Error writeAtomically(const std::string &path,
                            const std::function<llvm::Error(llvm::raw_fd_ostream &)> &write) {
  int fd = -1;
  auto tmp = temporaryBeside(path, fd);
  if (!tmp)
    return tmp.takeError();
  llvm::Error e = llvm::Error::success();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    e = write(os);
    os.flush();
    if (!e && os.has_error())
      e = fail("cannot write " + path + ": " + os.error().message());
    os.clear_error();
  }
  if (e) {
    llvm::sys::fs::remove(*tmp);
    return e;
  }
  return commit(*tmp, path);
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
    return writeAtomically(path, [&](llvm::raw_fd_ostream &os) {
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
    e = writeAtomically(path, [&](llvm::raw_fd_ostream &os) {
      module->print(os, nullptr);
      return llvm::Error::success();
    });
    break;
  case EmitKind::Assembly:
  case EmitKind::Object:
    e = writeAtomically(path, [&](llvm::raw_fd_ostream &os) {
      return machineCode(*module, **machine, os,
                         kind == EmitKind::Object ? llvm::CGFT_ObjectFile
                                                  : llvm::CGFT_AssemblyFile);
    });
    break;
  case EmitKind::Shared: {
    // The object goes to a temporary; the system's C compiler driver links it with the
    // OpenMP runtime and libm into a temporary library, renamed into place.
    llvm::SmallString<256> obj;
    int objFd = -1;
    if (auto ec = llvm::sys::fs::createTemporaryFile("isamap", "o", objFd, obj))
      return fail("cannot create a temporary object file: " + ec.message());
    {
      llvm::raw_fd_ostream os(objFd, true);
      e = machineCode(*module, **machine, os, llvm::CGFT_ObjectFile);
    }
    if (!e) {
      int fd = -1;
      auto tmp = temporaryBeside(path, fd);
      if (!tmp) {
        e = tmp.takeError();
      } else {
        llvm::sys::Process::SafelyCloseFileDescriptor(fd);
        auto cc = llvm::sys::findProgramByName("cc");
        if (!cc) {
          e = fail("linking a shared library needs a C compiler driver (cc) on the PATH");
        } else {
          std::string message;
          llvm::StringRef args[] = {*cc, "-shared", "-o", *tmp, obj, "-lgomp", "-lm"};
          int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &message);
          if (rc != 0)
            e = fail("linking " + path + " failed (cc exited with " + llvm::Twine(rc) + ")" +
                     (message.empty() ? "" : ": " + message));
        }
        if (e)
          llvm::sys::fs::remove(*tmp);
        else
          e = commit(*tmp, path);
      }
    }
    llvm::sys::fs::remove(obj);
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
