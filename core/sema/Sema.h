// Semantic analysis: AST to compute IR and hardware model.
//
// Contract: functions here never throw on bad input. They report diagnostics (E02xx names,
// E03xx types and shapes, E04xx sizes and ranges, E05xx hardware) and return std::nullopt for a
// declaration they could not turn into IR. Everything returned satisfies the invariants stated
// in ir/Compute.h and hw/Hardware.h.
#pragma once

#include "diag/Diagnostic.h"
#include "hw/Hardware.h"
#include "ir/Compute.h"
#include "syntax/Ast.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isam::sema {

// Every top-level declaration visible in a compilation (the main file and its imports).
struct Symbols {
  std::map<std::string, const ast::KernelDecl *> kernels;
  std::map<std::string, const ast::InstanceDecl *> instances;
  std::map<std::string, const ast::TargetDecl *> targets;
  std::map<std::string, const ast::SystemDecl *> systems;
};

// Collects declarations, reporting names declared twice (E0201).
Symbols collectSymbols(const std::vector<const ast::File *> &files, DiagnosticSink &diags);

// Checks a kernel's structure without sizes (names, types, reductions, writes); reports each
// problem once however many instances there are. False when the kernel has errors.
bool checkKernel(const ast::KernelDecl &kernel, DiagnosticSink &diags);

// Binds the kernel's size parameters and builds the IR: shapes, range inference, bounds.
// `name` names the result; `use` is where the binding was written (for notes), if anywhere.
std::optional<ir::Kernel> instantiate(const ast::KernelDecl &kernel, const std::string &name,
                                      const std::map<std::string, int64_t> &sizes, SourceRange use,
                                      DiagnosticSink &diags);

// Evaluates an `instance` declaration's size arguments and instantiates.
std::optional<ir::Kernel> instantiate(const ast::InstanceDecl &instance, const Symbols &symbols,
                                      DiagnosticSink &diags);

std::optional<hw::Target> buildTarget(const ast::TargetDecl &target, DiagnosticSink &diags);

std::optional<hw::System> buildSystem(const ast::SystemDecl &system, const Symbols &symbols,
                                      DiagnosticSink &diags);

// The element-wise functions the language knows, with their arity.
struct FunctionInfo {
  ir::Fn fn;
  const char *name;
  int arity;
  const char *doc; // what it computes, for hovers
};
const std::vector<FunctionInfo> &knownFunctions();

// The blocks of a hardware description that hold properties, and the keys each accepts: the
// tables buildTarget and buildSystem read properties with (editors classify and complete from
// them too).
enum class PropertyBlock { Target, Memory, Registers, Unit, Cost, Link };
std::vector<std::string> propertyKeys(PropertyBlock block);
// Whether `word` is a unit a property value may carry: a size, a frequency, or one side of a
// bandwidth (`B/cycle`, `GB/s`).
bool isUnitOfMeasure(const std::string &word);
// The fields of an `llvm` line: triple, cpu, features.
const std::vector<std::string> &llvmFields();

} // namespace isam::sema
