// The call hierarchy of isamap programs: an instance calls its kernel, and a kernel calls the
// instructions that run its statements on the configured target (those its schedule chose).
//
// - prepare: the instance, kernel or instruction named at the position (declared or used).
// - outgoing: of an instance, its kernel (from where the instance names it); of a kernel, each
//   instruction its schedule runs (from the statements it runs); an instruction calls nothing.
// - incoming: of a kernel, every instance of it in the open documents and the workspace's files;
//   of an instruction, the kernels of the open documents whose schedules run it (a kernel is
//   scheduled for its default instance, as lenses do); an instance has no caller.
//
// Items name declarations by declarationKey, so a hierarchy reaches across documents and files.
// A kernel whose file is not open is analysed on demand (Beyond::analyse) to schedule it.
#pragma once

#include "lsp/Navigation.h"

namespace isam::lsp {

std::optional<std::vector<CallHierarchyItem>> prepareCallHierarchy(Analysis &a, Position p);
std::vector<CallHierarchyCall> incomingCalls(const CallHierarchyItem &item, const Beyond &beyond,
                                             const StopFn &stop = {});
std::vector<CallHierarchyCall> outgoingCalls(const CallHierarchyItem &item, const Beyond &beyond,
                                             const StopFn &stop = {});

} // namespace isam::lsp
