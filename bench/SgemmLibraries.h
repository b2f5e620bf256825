// The reference sgemm implementations the GEMM benchmark compares isamap against: OpenBLAS,
// BLIS and oneDNN, each resolved from one explicit shared-library file so that a figure is
// that library's and no other's. OpenBLAS and BLIS export the same BLAS and CBLAS symbols, so
// they are never linked by name: each is dlopen'ed privately (RTLD_LOCAL | RTLD_DEEPBIND) and
// called through dlsym'ed pointers. A library that cannot be loaded is reported, not fatal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace isam::bench {

// Row-major C[M, N] = op(A) * op(B): op(A) is M x K, stored K x M when transA; op(B) is
// K x N, stored N x K when transB. C is overwritten (beta = 0).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
};

class SgemmLibrary {
public:
  virtual ~SgemmLibrary() = default;
  const std::string &name() const { return name_; }
  const std::string &file() const { return file_; }           // the file actually loaded
  const std::string &version() const { return version_; }     // as the library reports it
  const std::string &threading() const { return threading_; } // how threads are set
  // Sets the thread count the next calls use; false if the library did not accept it.
  virtual bool setThreads(int threads) = 0;
  virtual void sgemm(const GemmShape &s, const float *a, const float *b, float *c) = 0;

protected:
  std::string name_, file_, version_, threading_;
};

struct LoadReport {
  std::vector<std::unique_ptr<SgemmLibrary>> loaded; // OpenBLAS, BLIS, oneDNN order
  std::vector<std::string> missing;                  // "name: why" for each one not loaded
};

// Loads every library it can. `names` restricts the set (empty: all of openblas, blis,
// onednn).
LoadReport loadSgemmLibraries(const std::vector<std::string> &names = {});

// An OpenMP runtime (libgomp for oneDNN, BLIS-openmp and isamap's generated code on Debian):
// its file, and its omp_set_num_threads. `scope` is a dlopen handle whose dependencies are
// searched, or null for the process's global scope. setNumThreads is null when none is found.
struct OpenMP {
  std::string file;
  void (*setNumThreads)(int) = nullptr;
};
OpenMP openMP(void *scope = nullptr);

// The path of the file that defines `address` (dladdr), resolved through symlinks.
std::string fileOf(const void *address);

} // namespace isam::bench
