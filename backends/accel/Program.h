// The accelerator's instruction stream: what backends/accel/Emit makes of a kernel's schedule
// for a target with no LLVM backend (an accelerator that exists only as its description), and
// what the simulator runs.
//
// Model. Every memory of the target is a flat byte-addressed space. Tensors live in the
// outermost memory (DRAM) at fixed addresses; so do *views*, copies of a tensor in the layout
// an instruction operand needs (a transposed or im2col'ed matrix), which the host packs before
// the accelerator starts and unpacks after. An `Instr` op is one described instruction or move:
// each semantics tensor gets a region (address, a byte stride per dimension, and the extent of
// its valid part: reads outside it give 0, writes outside it are dropped, as the schedule IR
// masks lanes beyond a tile). Host ops (clearing an output before a reduction, packing, a
// statement no instruction runs) are barriers: the accelerator drains before them, and they
// take no accelerator cycles.
#pragma once

#include "hw/Hardware.h"
#include "ir/Compute.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace isam::accel {

// What the backend and the simulator throw: a message naming what and where.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Region {
  int memory = -1; // index into Target::memories
  uint64_t address = 0;
  std::vector<int64_t> strides; // bytes per step of each dimension
  std::vector<int64_t> valid;   // elements per dimension; beyond it, masked
};

// A tensor or view placed in the outermost memory.
struct Allocation {
  std::string name;
  int tensor = -1; // the kernel tensor (a view: the tensor it copies)
  uint64_t address = 0;
  uint64_t bytes = 0;
  // Views only: element [x0, ..., xn] (row-major over `extents`) holds the tensor element that
  // `access` reads at the statement point whose virtual indices are x; virtual index d is the
  // statement indices `groups[d]` fused, outermost first.
  bool view = false;
  int statement = -1;
  ir::Access access;
  std::vector<int64_t> extents;
  std::vector<std::vector<int>> groups;
  // A computed operand's view (schedule::OperandPlacement::computed, such as f32(B[k, n])):
  // the host packs this expression of the element `access` reads, and the view holds its type.
  std::optional<ir::Expr> computed;
};

// The type of an allocation's elements: its tensor's, or a computed view's expression's.
ir::ElemType elementType(const Allocation &a, const ir::Kernel &kernel);

struct Op {
  enum class Kind {
    Instr,         // a described instruction or move
    HostInit,      // the box [lo, lo + size) of an allocation set to `init`'s identity
    HostClear,     // a whole tensor set to zeros (ir::startsZeroed), before any other op
    HostPack,      // the view `allocation` filled from its tensor
    HostUnpack,    // the view `allocation` written back to its tensor
    HostStatement, // `statement` of the kernel run by the host (no instruction runs it)
  };
  Kind kind = Kind::Instr;
  int instruction = -1;        // Instr: index into Target::instructions
  std::vector<int64_t> sizes;  // Instr: the free size parameters' values, in declaration order
  std::vector<Region> regions; // Instr: one per semantics tensor
  int allocation = -1;         // HostInit, HostPack, HostUnpack
  std::vector<int64_t> lo, size;
  ir::ReduceOp init = ir::ReduceOp::Sum;
  int statement = -1; // HostStatement; for the others, the statement they serve
};

// Receives a program as it is emitted: the layout first, then the ops in order. Streaming lets
// the simulator run schedules of millions of instructions without holding them.
class Sink {
public:
  virtual ~Sink() = default;
  virtual void layout(const std::vector<Allocation> &allocations) = 0;
  virtual void op(const Op &op) = 0;
};

struct Program {
  std::string kernel, target;
  std::vector<Allocation> allocations;
  std::vector<Op> ops;
};

// Collects a whole program (listings, the JSON form, tests).
class ProgramSink : public Sink {
public:
  explicit ProgramSink(Program &p) : p_(p) {}
  void layout(const std::vector<Allocation> &allocations) override { p_.allocations = allocations; }
  void op(const Op &op) override { p_.ops.push_back(op); }

private:
  Program &p_;
};

// Where the streaming sinks below write: called with each piece of text in order (about a MiB
// at a time); it throws (an Error) to stop the emission, e.g. when a write fails.
using TextOut = std::function<void(std::string_view)>;

// Writes the listing (what `listing` returns) as the program is emitted, holding one buffer
// rather than the whole program: `compile --emit=asm` of a schedule of millions of
// instructions runs in constant memory. Call finish() after the last op.
class ListingSink : public Sink {
public:
  ListingSink(const ir::Kernel &kernel, const hw::Target &target, TextOut out);
  void layout(const std::vector<Allocation> &allocations) override;
  void op(const Op &op) override;
  void finish();

private:
  void flushIfFull();
  const ir::Kernel &kernel_;
  const hw::Target &target_;
  TextOut out_;
  std::string buffer_;
  std::vector<Allocation> allocations_;
  int statement_ = -1;
};

// Writes the JSON form (exactly `toJson(program).dump()`) as the program is emitted, in
// constant memory like ListingSink. Call finish() after the last op.
class JsonSink : public Sink {
public:
  JsonSink(const ir::Kernel &kernel, const hw::Target &target, TextOut out);
  void layout(const std::vector<Allocation> &allocations) override;
  void op(const Op &op) override;
  void finish();

private:
  void flushIfFull();
  const ir::Kernel &kernel_;
  const hw::Target &target_;
  TextOut out_;
  std::string buffer_;
  bool first_ = true;
};

// `0x` and the address in hex, as listings and messages print addresses.
std::string hexAddress(uint64_t address);

// The readable listing: each instruction from its description's asm template, with
// `{operand}` replaced by `MEMORY[0xADDRESS]` (plus the row stride and valid extent where they
// are not the dense default) and `{R}` by the size; host ops and the layout as comments.
std::string listing(const Program &p, const ir::Kernel &kernel, const hw::Target &target);

// The JSON form the simulator reads back (fromJson checks it against the target and kernel).
nlohmann::json toJson(const Program &p, const hw::Target &target);
Program fromJson(const nlohmann::json &j, const ir::Kernel &kernel, const hw::Target &target);

} // namespace isam::accel
