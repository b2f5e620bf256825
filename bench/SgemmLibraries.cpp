// Loading OpenBLAS, BLIS and oneDNN by explicit file and calling their sgemm (see
// SgemmLibraries.h). Every entry point is looked up with dlsym on the library's own handle, so
// which library answers a call never depends on link order or on which one was loaded first.
#include "SgemmLibraries.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

namespace isam::bench {

namespace {

// Debian installs each BLAS variant in its own directory under the multiarch library
// directory; the plain soname (found through ld.so's search path) comes last.
#if defined(__x86_64__)
constexpr const char *kLibDir = "/usr/lib/x86_64-linux-gnu/";
#elif defined(__aarch64__)
constexpr const char *kLibDir = "/usr/lib/aarch64-linux-gnu/";
#elif defined(__riscv) && __riscv_xlen == 64
constexpr const char *kLibDir = "/usr/lib/riscv64-linux-gnu/";
#else
constexpr const char *kLibDir = "/usr/lib/";
#endif

// The standard CBLAS enumerators (cblas.h); both OpenBLAS and BLIS use these values.
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;
using CblasSgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha,
                            const float *a, int lda, const float *b, int ldb, float beta, float *c,
                            int ldc);

// The leading dimensions of the row-major operands of `s`.
int64_t lda(const GemmShape &s) {
  return s.transA ? s.m : s.k;
}
int64_t ldb(const GemmShape &s) {
  return s.transB ? s.k : s.n;
}

// A dlopen'ed library: the first candidate file that loads and defines `probe`.
struct Handle {
  void *handle = nullptr;
  std::string file, error;

  Handle(const std::vector<std::string> &candidates, const char *probe, int flags) {
    for (const auto &c : candidates) {
      void *h = dlopen(c.c_str(), RTLD_NOW | flags);
      if (!h) {
        const char *e = dlerror();
        error = e ? e : ("cannot load " + c);
        continue;
      }
      if (void *sym = dlsym(h, probe)) {
        handle = h;
        file = fileOf(sym);
        return;
      }
      error = c + " does not define " + probe;
      dlclose(h);
    }
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  // Never dlclose'd: BLAS runtimes keep worker threads that must not outlive their code.

  template <typename F> F get(const char *name) const {
    return reinterpret_cast<F>(dlsym(handle, name));
  }
};

class CblasLibrary : public SgemmLibrary {
public:
  CblasLibrary(std::string name, std::unique_ptr<Handle> h, std::function<bool(int)> setThreads)
      : h_(std::move(h)), setThreads_(std::move(setThreads)) {
    name_ = std::move(name);
    file_ = h_->file;
    sgemm_ = h_->get<CblasSgemm>("cblas_sgemm");
  }
  bool setThreads(int threads) override { return setThreads_(threads); }
  void sgemm(const GemmShape &s, const float *a, const float *b, float *c) override {
    sgemm_(kCblasRowMajor, s.transA ? kCblasTrans : kCblasNoTrans,
           s.transB ? kCblasTrans : kCblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f, a,
           int(lda(s)), b, int(ldb(s)), 0.0f, c, int(s.n));
  }
  void setVersion(std::string v, std::string threading) {
    version_ = std::move(v);
    threading_ = std::move(threading);
  }
  const Handle &handle() const { return *h_; }

private:
  std::unique_ptr<Handle> h_;
  std::function<bool(int)> setThreads_;
  CblasSgemm sgemm_ = nullptr;
};

// RTLD_LOCAL keeps the BLAS symbols out of the global scope; RTLD_DEEPBIND makes the library's
// internal references (cblas_sgemm -> sgemm_) resolve inside itself first.
constexpr int kBlasFlags = RTLD_LOCAL | RTLD_DEEPBIND;

std::unique_ptr<SgemmLibrary> loadOpenBLAS(std::string &why) {
  std::string d = kLibDir;
  auto h = std::make_unique<Handle>(
      std::vector<std::string>{d + "openblas-pthread/libopenblas.so.0",
                               d + "openblas-openmp/libopenblas.so.0", "libopenblas.so.0"},
      "openblas_set_num_threads", kBlasFlags);
  if (!h->handle) {
    why = h->error;
    return nullptr;
  }
  auto set = h->get<void (*)(int)>("openblas_set_num_threads");
  auto get = h->get<int (*)()>("openblas_get_num_threads");
  auto config = h->get<char *(*)()>("openblas_get_config");
  auto core = h->get<char *(*)()>("openblas_get_corename");
  auto parallel = h->get<int (*)()>("openblas_get_parallel");
  if (!h->get<CblasSgemm>("cblas_sgemm")) {
    why = h->file + " has no cblas_sgemm";
    return nullptr;
  }
  auto lib = std::make_unique<CblasLibrary>("openblas", std::move(h), [set, get](int t) {
    set(t);
    return !get || get() == t;
  });
  std::string v = config ? config() : "OpenBLAS (version unknown)";
  if (core)
    v += std::string(", core ") + core();
  // openblas_get_parallel: 0 sequential, 1 pthreads, 2 OpenMP.
  int p = parallel ? parallel() : -1;
  lib->setVersion(v, p == 2   ? "openblas_set_num_threads (OpenMP build)"
                     : p == 0 ? "none (sequential build)"
                              : "openblas_set_num_threads (pthreads build)");
  return lib;
}

std::unique_ptr<SgemmLibrary> loadBLIS(std::string &why) {
  std::string d = kLibDir;
  auto h = std::make_unique<Handle>(std::vector<std::string>{d + "blis-openmp/libblis.so.4",
                                                             d + "blis-pthread/libblis.so.4",
                                                             "libblis.so.4", "libblis.so.3"},
                                    "bli_thread_set_num_threads", kBlasFlags);
  if (!h->handle) {
    why = h->error;
    return nullptr;
  }
  if (!h->get<CblasSgemm>("cblas_sgemm")) {
    why = h->file + " has no cblas_sgemm (BLIS built without CBLAS)";
    return nullptr;
  }
  // dim_t (gint_t) is BLIS's integer type, 64 bits on LP64 builds; bli_info_get_int_type_size
  // says. Its results are read through int32_t so that a 32-bit build answers correctly too.
  auto intSize = h->get<int64_t (*)()>("bli_info_get_int_type_size");
  if (intSize && int32_t(intSize()) != 64) {
    why = h->file + " uses " + std::to_string(int32_t(intSize())) +
          "-bit dim_t; only 64 is supported";
    return nullptr;
  }
  auto set = h->get<void (*)(int64_t)>("bli_thread_set_num_threads");
  auto get = h->get<int64_t (*)()>("bli_thread_get_num_threads");
  auto version = h->get<char *(*)()>("bli_info_get_version_str");
  auto archId = h->get<int (*)()>("bli_arch_query_id");
  auto archName = h->get<const char *(*)(int)>("bli_arch_string");
  auto openmp = h->get<int64_t (*)()>("bli_info_get_enable_openmp");
  auto lib = std::make_unique<CblasLibrary>("blis", std::move(h), [set, get](int t) {
    set(t);
    return !get || int32_t(get()) == t;
  });
  std::string v = std::string("BLIS ") + (version ? version() : "(version unknown)");
  if (archId && archName)
    v += std::string(", arch ") + archName(archId());
  lib->setVersion(v, std::string("bli_thread_set_num_threads") +
                         (openmp && int32_t(openmp()) ? " (OpenMP build)" : " (pthreads build)"));
  return lib;
}

// dnnl_version_t (oneapi/dnnl/dnnl_types.h), a stable C struct.
struct DnnlVersion {
  int major, minor, patch;
  const char *hash;
  unsigned cpuRuntime, gpuRuntime;
};

class OnednnLibrary : public SgemmLibrary {
public:
  using Sgemm = int (*)(char transA, char transB, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                        float *c, int64_t ldc);
  OnednnLibrary(std::unique_ptr<Handle> h, OpenMP omp) : h_(std::move(h)), omp_(std::move(omp)) {
    name_ = "onednn";
    file_ = h_->file;
    sgemm_ = h_->get<Sgemm>("dnnl_sgemm");
    auto version = h_->get<const DnnlVersion *(*)()>("dnnl_version");
    const DnnlVersion *v = version ? version() : nullptr;
    version_ = "oneDNN (version unknown)";
    if (v) {
      version_ = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                 std::to_string(v->patch);
      // Debian's build has no git hash ("N/A").
      if (v->hash && std::string(v->hash) != "N/A")
        version_ += std::string(" (") + v->hash + ")";
    }
    // DNNL_RUNTIME_*: 1 sequential, 2 OpenMP, 4 TBB, 8 threadpool.
    unsigned rt = v ? v->cpuRuntime : 0;
    threading_ = rt == 2   ? "omp_set_num_threads via " + omp_.file
                 : rt == 1 ? std::string("none (sequential build)")
                           : "runtime " + std::to_string(rt) + " (threads not controlled)";
    ompRuntime_ = rt == 2;
  }
  bool setThreads(int threads) override {
    // oneDNN's OpenMP build sizes its parallel regions by omp_get_max_threads(), the calling
    // thread's nthreads-var, which omp_set_num_threads sets.
    if (!ompRuntime_ || !omp_.setNumThreads)
      return threads == 1 && !ompRuntime_;
    omp_.setNumThreads(threads);
    return true;
  }
  void sgemm(const GemmShape &s, const float *a, const float *b, float *c) override {
    // dnnl_sgemm is row-major already.
    sgemm_(s.transA ? 'T' : 'N', s.transB ? 'T' : 'N', s.m, s.n, s.k, 1.0f, a, lda(s), b, ldb(s),
           0.0f, c, s.n);
  }

private:
  std::unique_ptr<Handle> h_;
  OpenMP omp_;
  Sgemm sgemm_ = nullptr;
  bool ompRuntime_ = false;
};

std::unique_ptr<SgemmLibrary> loadOnednn(std::string &why) {
  std::string d = kLibDir;
  // No RTLD_DEEPBIND: oneDNN is C++ and must share libstdc++'s globals with the process; it
  // exports no BLAS symbols that could clash (and the benchmark links it anyway).
  auto h =
      std::make_unique<Handle>(std::vector<std::string>{"libdnnl.so.3", "libdnnl.so.2",
                                                        d + "libdnnl.so.3", d + "libdnnl.so.2"},
                               "dnnl_sgemm", RTLD_LOCAL);
  if (!h->handle) {
    why = h->error;
    return nullptr;
  }
  // dlsym on oneDNN's handle searches its dependencies: this is the OpenMP runtime it uses,
  // wherever the process's other runtimes come from.
  OpenMP omp = openMP(h->handle);
  return std::make_unique<OnednnLibrary>(std::move(h), std::move(omp));
}

} // namespace

std::string fileOf(const void *address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname)
    return "?";
  std::error_code ec;
  auto p = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : p.string();
}

OpenMP openMP(void *scope) {
  OpenMP omp;
  auto set =
      reinterpret_cast<void (*)(int)>(dlsym(scope ? scope : RTLD_DEFAULT, "omp_set_num_threads"));
  if (!set)
    return omp;
  omp.setNumThreads = set;
  omp.file = fileOf(reinterpret_cast<const void *>(set));
  return omp;
}

LoadReport loadSgemmLibraries(const std::vector<std::string> &names) {
  using Loader = std::unique_ptr<SgemmLibrary> (*)(std::string &);
  const std::pair<const char *, Loader> all[] = {
      {"openblas", loadOpenBLAS}, {"blis", loadBLIS}, {"onednn", loadOnednn}};
  LoadReport report;
  for (const auto &[name, load] : all) {
    bool wanted = names.empty();
    for (const auto &n : names)
      wanted = wanted || n == name;
    if (!wanted)
      continue;
    std::string why;
    if (auto lib = load(why))
      report.loaded.push_back(std::move(lib));
    else
      report.missing.push_back(std::string(name) + ": " + why);
  }
  return report;
}

} // namespace isam::bench
