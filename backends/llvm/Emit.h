// Writing compiled kernels to files: objects, assembly, LLVM IR, shared libraries and C
// headers. Every file is written atomically: to a temporary beside it, renamed into place only
// when complete, so an error never leaves a half-written output.
#pragma once

#include "backends/llvm/Backend.h"

namespace isam::backend {

enum class EmitKind { Object, Assembly, LLVM, Shared, Header };

llvm::Error emitFile(EmitKind kind, const hw::Target &target,
                     const std::vector<KernelCode> &kernels, const std::string &path,
                     CompileTimes *times = nullptr);

} // namespace isam::backend
