// backends/llvm/VectorMath: exp, log, tanh and sigmoid for float and double, at 1, 4 and 16
// lanes, JIT-compiled for this CPU after the backend's optimisation pipeline, against long-double
// references: the largest error in ulp over a dense sweep of every exponent (bit patterns a
// fixed stride apart, both signs) and consecutive values around each branch point and limit,
// under a bound; and the special values (NaN, infinities, signed zeros, overflow, underflow,
// saturation) exactly as the C library gives them.
#include "backends/llvm/VectorMath.h"
#include "backends/llvm/Backend.h"

#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <vector>

using namespace isam;

namespace {

enum class Fn { Exp, Log, Tanh, Sigmoid };
const char *const kNames[] = {"exp", "log", "tanh", "sigmoid"};
const unsigned kLanes[] = {1, 4, 16};

// Applies a function to `lanes` consecutive elements: in[0..lanes) to out[0..lanes).
using Kernel = void (*)(const void *in, void *out);

std::string symbol(Fn fn, bool isDouble, unsigned lanes) {
  return std::string(kNames[int(fn)]) + (isDouble ? "_f64_" : "_f32_") + std::to_string(lanes);
}

// Every function at every lane count and type, in one module, compiled once.
class Compiled {
public:
  static Compiled &get() {
    static Compiled c;
    return c;
  }
  Kernel kernel(Fn fn, bool isDouble, unsigned lanes) {
    return kernels_.at(symbol(fn, isDouble, lanes));
  }

private:
  Compiled() {
    backend::initializeLLVM();
    auto jtmb = llvm::cantFail(llvm::orc::JITTargetMachineBuilder::detectHost());
    jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    auto machine = llvm::cantFail(jtmb.createTargetMachine());
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("vecmath", *context);
    llvm::IRBuilder<> b(*context);
    for (int f = 0; f < 4; ++f)
      for (bool isDouble : {false, true})
        for (unsigned lanes : kLanes) {
          llvm::Type *scalar = isDouble ? b.getDoubleTy() : b.getFloatTy();
          llvm::Type *type = lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
          auto *fnType =
              llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy()}, false);
          auto *function = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage,
                                                  symbol(Fn(f), isDouble, lanes), module.get());
          b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", function));
          llvm::Value *x =
              b.CreateAlignedLoad(type, function->getArg(0), llvm::Align(isDouble ? 8 : 4));
          llvm::Value *y = nullptr;
          switch (Fn(f)) {
          case Fn::Exp:
            y = backend::vecmath::exp(b, x);
            break;
          case Fn::Log:
            y = backend::vecmath::log(b, x);
            break;
          case Fn::Tanh:
            y = backend::vecmath::tanh(b, x);
            break;
          case Fn::Sigmoid:
            y = backend::vecmath::sigmoid(b, x);
            break;
          }
          b.CreateAlignedStore(y, function->getArg(1), llvm::Align(isDouble ? 8 : 4));
          b.CreateRetVoid();
        }
    backend::optimizeModule(*module, *machine);
    // No call is left: the functions are plain arithmetic on every target.
    for (llvm::Function &function : *module)
      for (llvm::BasicBlock &block : function)
        for (llvm::Instruction &i : block)
          if (auto *call = llvm::dyn_cast<llvm::CallInst>(&i)) {
            EXPECT_TRUE(call->getCalledFunction() && call->getCalledFunction()->isIntrinsic())
                << function.getName().str() << " calls "
                << call->getCalledOperand()->getName().str();
          }
    jit_ = llvm::cantFail(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create());
    module->setDataLayout(jit_->getDataLayout());
    llvm::cantFail(
        jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))));
    for (int f = 0; f < 4; ++f)
      for (bool isDouble : {false, true})
        for (unsigned lanes : kLanes) {
          std::string name = symbol(Fn(f), isDouble, lanes);
          kernels_[name] = llvm::cantFail(jit_->lookup(name)).toPtr<Kernel>();
        }
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::map<std::string, Kernel> kernels_;
};

long double reference(Fn fn, long double x) {
  switch (fn) {
  case Fn::Exp:
    return std::exp(x);
  case Fn::Log:
    return std::log(x);
  case Fn::Tanh:
    return std::tanh(x);
  case Fn::Sigmoid:
    return 1 / (1 + std::exp(-x));
  }
  return 0;
}

// The distance from `got` to the exact `want` in units of the last place of T at `want`
// (subnormals have the smallest exponent's ulp); infinite when exactly one is non-finite or
// they differ in a special way.
template <typename T> double ulpError(T got, long double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  long double rounded = (long double)(T)want; // the infinities of T's range too
  if (std::isinf(rounded) || std::isinf(got))
    return rounded == got ? 0 : INFINITY;
  int e = std::max(std::ilogb(want == 0 ? std::numeric_limits<T>::min() : want),
                   std::numeric_limits<T>::min_exponent - 1);
  long double ulp = std::ldexp(1.0L, e - (std::numeric_limits<T>::digits - 1));
  return double(std::fabs((long double)got - want) / ulp);
}

template <typename T> struct Sweep {
  double maxUlp = 0;
  T worst = 0;
  size_t count = 0;
};

// Runs `fn` on `xs` (padded to the lane count with 1) and measures the error against the
// reference, for every lane count; returns the worst over them.
template <typename T> Sweep<T> measure(Fn fn, std::vector<T> xs) {
  constexpr bool isDouble = std::is_same_v<T, double>;
  while (xs.size() % 16)
    xs.push_back(1);
  std::vector<long double> want(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    want[i] = reference(fn, (long double)xs[i]);
  Sweep<T> s;
  std::vector<T> out(xs.size());
  for (unsigned lanes : kLanes) {
    Kernel k = Compiled::get().kernel(fn, isDouble, lanes);
    for (size_t i = 0; i < xs.size(); i += lanes)
      k(&xs[i], &out[i]);
    for (size_t i = 0; i < xs.size(); ++i) {
      double e = ulpError(out[i], want[i]);
      if (!(e <= s.maxUlp)) {
        s.maxUlp = e;
        s.worst = xs[i];
      }
    }
    s.count += xs.size();
  }
  return s;
}

// Bit patterns `stride` apart over every finite value of both signs, then `around` consecutive
// values on each side of each point of `dense`.
template <typename T>
std::vector<T> sweepInputs(uint64_t stride, const std::vector<T> &dense, int around) {
  using Bits = std::conditional_t<std::is_same_v<T, double>, uint64_t, uint32_t>;
  std::vector<T> xs;
  const Bits inf = std::bit_cast<Bits>(std::numeric_limits<T>::infinity());
  for (uint64_t b = 0; b < inf; b += stride) {
    T x = std::bit_cast<T>(Bits(b));
    xs.push_back(x);
    xs.push_back(-x);
  }
  for (T c : dense) {
    T x = c;
    for (int i = 0; i < around; ++i)
      xs.push_back(x = std::nextafter(x, std::numeric_limits<T>::infinity()));
    x = c;
    for (int i = 0; i < around; ++i)
      xs.push_back(x = std::nextafter(x, -std::numeric_limits<T>::infinity()));
  }
  return xs;
}

// The points where each function changes branch or reaches a limit.
template <typename T> std::vector<T> branchPoints(Fn fn) {
  const bool isDouble = std::is_same_v<T, double>;
  switch (fn) {
  case Fn::Exp:
    return isDouble ? std::vector<T>{0, T(0.3465), T(709.78), T(-708.39), T(-745.13)}
                    : std::vector<T>{0, T(0.3465), T(88.72), T(-87.33), T(-103.97)};
  case Fn::Log:
    return {1, T(0.7071), T(1.4142), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  case Fn::Tanh:
    return {0, T(0.625), T(-0.625), T(9.01), T(19.06)};
  case Fn::Sigmoid:
    return {0, T(-87.3), T(-103.9), T(16.6), T(36.7)};
  }
  return {};
}

struct Bound {
  Fn fn;
  double f32, f64;
};

class VectorMathAccuracy : public ::testing::TestWithParam<Bound> {};

TEST_P(VectorMathAccuracy, FloatWithinBoundOverDenseSweep) {
  Fn fn = GetParam().fn;
  auto s = measure<float>(fn, sweepInputs<float>(2039, branchPoints<float>(fn), 2000));
  std::printf("[ vecmath  ] %s f32: max %.3f ulp over %zu values (worst at %a)\n", kNames[int(fn)],
              s.maxUlp, s.count, double(s.worst));
  EXPECT_LE(s.maxUlp, GetParam().f32) << kNames[int(fn)] << " worst at " << s.worst;
}

TEST_P(VectorMathAccuracy, DoubleWithinBoundOverDenseSweep) {
  Fn fn = GetParam().fn;
  auto s = measure<double>(
      fn, sweepInputs<double>((uint64_t(1) << 44) + 12345, branchPoints<double>(fn), 2000));
  std::printf("[ vecmath  ] %s f64: max %.3f ulp over %zu values (worst at %a)\n", kNames[int(fn)],
              s.maxUlp, s.count, s.worst);
  EXPECT_LE(s.maxUlp, GetParam().f64) << kNames[int(fn)] << " worst at " << s.worst;
}

INSTANTIATE_TEST_SUITE_P(Functions, VectorMathAccuracy,
                         ::testing::Values(Bound{Fn::Exp, 2, 2}, Bound{Fn::Log, 2, 2},
                                           Bound{Fn::Tanh, 2, 2}, Bound{Fn::Sigmoid, 3, 3}),
                         [](const ::testing::TestParamInfo<Bound> &info) {
                           return std::string(kNames[int(info.param.fn)]);
                         });

// The special values, bit for bit where the C library's result is exact (the sign of zero
// included), at every lane position of every lane count.
template <typename T> void expectSpecials() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::is_same_v<T, double> ? T(1000) : T(200);
  struct Special {
    Fn fn;
    T x, want;
  };
  const Special specials[] = {
      {Fn::Exp, nan, nan},
      {Fn::Exp, inf, inf},
      {Fn::Exp, -inf, 0},
      {Fn::Exp, big, inf},
      {Fn::Exp, -big, 0},
      {Fn::Exp, 0, 1},
      {Fn::Exp, T(-0.0), 1},
      {Fn::Log, nan, nan},
      {Fn::Log, inf, inf},
      {Fn::Log, -inf, nan},
      {Fn::Log, 0, -inf},
      {Fn::Log, T(-0.0), -inf},
      {Fn::Log, -1, nan},
      {Fn::Log, 1, 0},
      {Fn::Log, -std::numeric_limits<T>::denorm_min(), nan},
      {Fn::Tanh, nan, nan},
      {Fn::Tanh, inf, 1},
      {Fn::Tanh, -inf, -1},
      {Fn::Tanh, big, 1},
      {Fn::Tanh, -big, -1},
      {Fn::Tanh, 0, 0},
      {Fn::Tanh, T(-0.0), T(-0.0)},
      {Fn::Sigmoid, nan, nan},
      {Fn::Sigmoid, inf, 1},
      {Fn::Sigmoid, -inf, 0},
      {Fn::Sigmoid, big, 1},
      {Fn::Sigmoid, -big * 10, 0},
      {Fn::Sigmoid, 0, T(0.5)},
      {Fn::Sigmoid, T(-0.0), T(0.5)},
  };
  for (const Special &s : specials)
    for (unsigned lanes : kLanes)
      for (unsigned at = 0; at < lanes; ++at) {
        std::vector<T> in(lanes, T(0.5)), out(lanes, T(7));
        in[at] = s.x;
        Compiled::get().kernel(s.fn, std::is_same_v<T, double>, lanes)(in.data(), out.data());
        bool same = std::isnan(s.want)
                        ? std::isnan(out[at])
                        : out[at] == s.want && std::signbit(out[at]) == std::signbit(s.want);
        EXPECT_TRUE(same) << kNames[int(s.fn)] << "(" << s.x << ") = " << out[at] << ", want "
                          << s.want << " (lane " << at << " of " << lanes << ")";
      }
}

TEST(VectorMath, FloatSpecialValues) {
  expectSpecials<float>();
}

TEST(VectorMath, DoubleSpecialValues) {
  expectSpecials<double>();
}

} // namespace
