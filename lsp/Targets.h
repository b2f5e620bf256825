// isamap/targets: every name the `target` setting can take for a document, as the target picker
// offers them, in the order a name resolves (the first of a name wins, so each is listed once):
//
// - host: this machine;
// - document: targets and systems the document and its imports declare;
// - workspace: a file NAME.isam beside the document that declares NAME;
// - include: the same in an include directory (isamap.includeDirs);
// - workspace: the same in a workspace folder;
// - shipped: the same in the shipped hwdesc/.
//
// That is the order Session::target looks in. A file whose name
// declares nothing of that name is not listed: `--target` could not find it by name. A
// description is the file's leading comment, without the "NAME: " it may start with, cut to
// its first sentence.
#pragma once

#include "lsp/Analysis.h"

#include <string>
#include <vector>

namespace isam::lsp {

struct TargetChoice {
  std::string name;
  std::string kind;   // "target" or "system"
  std::string path;   // the declaring file (canonical); empty for host
  std::string origin; // "host", "document", "workspace", "include" or "shipped"
  std::string description;
};

// `a` may be null (no document): then nothing is declared by a document or beside it.
std::vector<TargetChoice> targetChoices(Analysis *a, const Settings &settings);

} // namespace isam::lsp
