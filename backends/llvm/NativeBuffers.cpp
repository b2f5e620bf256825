#include "backends/llvm/NativeBuffers.h"

#include "ir/ElementBytes.h"

namespace isam::backend {

NativeBuffers toNative(const ir::Kernel &kernel, const interp::Buffers &buffers) {
  NativeBuffers out;
  out.storage.resize(kernel.tensors.size());
  for (size_t t = 0; t < kernel.tensors.size(); ++t) {
    const ir::Tensor &tensor = kernel.tensors[t];
    if (tensor.role == ir::TensorRole::Local)
      continue;
    size_t bytes = size_t(ir::elemTypeBytes(tensor.type));
    auto &s = out.storage[t];
    // Outputs start as garbage-looking NaNs so that a kernel that skips an element is caught.
    s.assign(size_t(tensor.elementCount()) * bytes,
             tensor.role == ir::TensorRole::Input ? 0 : 0xFF);
    if (tensor.role != ir::TensorRole::Output)
      for (size_t i = 0; i < buffers[t].size(); ++i)
        ir::storeElement(tensor.type, s.data() + i * bytes, buffers[t][i]);
    out.args.push_back(s.data());
  }
  return out;
}

void fromNative(const ir::Kernel &kernel, const NativeBuffers &native, interp::Buffers &buffers) {
  for (size_t t = 0; t < kernel.tensors.size(); ++t) {
    const ir::Tensor &tensor = kernel.tensors[t];
    if (tensor.role != ir::TensorRole::Output && tensor.role != ir::TensorRole::InOut)
      continue;
    size_t bytes = size_t(ir::elemTypeBytes(tensor.type));
    buffers[t].resize(size_t(tensor.elementCount()));
    for (size_t i = 0; i < buffers[t].size(); ++i)
      buffers[t][i] = ir::loadElement(tensor.type, native.storage[t].data() + i * bytes);
  }
}

} // namespace isam::backend
