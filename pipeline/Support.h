// Small helpers the pipeline's files share: elapsed time and errors with a message.
#pragma once

#include <llvm/Support/Error.h>

#include <chrono>
#include <string>

namespace isam::pipeline {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline llvm::Error fail(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace isam::pipeline
