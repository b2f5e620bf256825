// The dataflow graph of a kernel instance: tensors (name, element type, shape, role) and
// statements (their tensor expression and iteration domain), with an edge per read access
// (tensor to statement) and per write (statement to tensor).
//
// Node ids: "tensor.NAME" and "sN" (statement N); edges are labelled with the access.
#pragma once

#include "ir/Compute.h"
#include "viz/Style.h"

#include <string>

namespace isam::viz {

std::string kernelGraph(const ir::Kernel &kernel, const Options &options = {});

// Shared with the other pictures: "C[m, n] += A[m, k] * B[k, n]" and
// "m < 7, n < 5; sum over k < 13".
std::string statementExpression(const ir::Statement &s, const std::vector<ir::Tensor> &tensors);
std::string statementDomain(const ir::Statement &s);
// "f32[7, 13]" (free dimensions by name).
std::string tensorType(const ir::Tensor &t);

} // namespace isam::viz
