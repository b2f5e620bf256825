// Writing compiled kernels to files: objects, assembly, LLVM IR, shared libraries and C
// headers. Every file is written under the output policy of source/FileIo.h: a regular file
// through a temporary beside it, renamed into place only when complete (an error never leaves a
// half-written output); a link, a device or a FIFO written through, never replaced.
#pragma once

#include "backends/llvm/Backend.h"

namespace isam::backend {

enum class EmitKind { Object, Assembly, LLVM, Shared, Header };

llvm::Error emitFile(EmitKind kind, const hw::Target &target,
                     const std::vector<KernelCode> &kernels, const std::string &path,
                     CompileTimes *times = nullptr);

// The text of LLVM IR or assembly for the kernels, in memory (for a live compiler explorer);
// `kind` must be LLVM or Assembly.
llvm::Expected<std::string> emitText(EmitKind kind, const hw::Target &target,
                                     const std::vector<KernelCode> &kernels,
                                     CompileTimes *times = nullptr);

} // namespace isam::backend
