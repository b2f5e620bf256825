// The largest sizes sema accepts, and the check that enforces them.
//
// Each dimension is at most 2^40 (E0302), but their products overflow int64 long before
// anything could run: f32[65536, 65536, 65536, 65536] has 2^64 elements. Every size product
// downstream (element counts, byte offsets, point counts, cost-model operation counts) is an
// int64, so sema bounds the products here, computed with overflow checks:
//   - a tensor (or instruction operand) holds at most 2^62 bytes, so any byte offset into it and
//     any sum of two such offsets fit an int64;
//   - a statement's domain has at most 2^62 points (free instruction extents count 1), so point
//     counts, and operation counts as doubles, stay exact enough and never wrap.
// Whether an instance that passes also fits this machine's memory is the run's question (it
// says how many bytes it needs), not sema's.
#pragma once

#include "diag/Diagnostic.h"
#include "ir/Compute.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isam::sema {

constexpr int64_t kMaxTensorBytes = int64_t(1) << 62;
constexpr int64_t kMaxStatementPoints = int64_t(1) << 62;

// The product of `factors` (non-positive ones count 1: free extents), or nullopt when it
// exceeds `limit`.
std::optional<int64_t> boundedProduct(const std::vector<int64_t> &factors, int64_t limit);

// Reports E0410 for each tensor larger than kMaxTensorBytes and E0411 for each statement with
// more than kMaxStatementPoints points; notes `note` at `noteRange` when it is valid (the
// instance). False when anything is too large.
bool checkSizeLimits(const std::vector<ir::Tensor> &tensors,
                     const std::vector<ir::Statement> &statements, SourceRange noteRange,
                     const std::string &note, DiagnosticSink &diags);

} // namespace isam::sema
