// Editor features tested below the protocol: an Analysis of a snippet, as the language server
// would make it for an open document.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Summaries.h"
#include "lsp/Uri.h"
#include "support/TestSupport.h"

#include <memory>
#include <string>

namespace isam::test {

// The target the server's tests configure (a shipped description: nothing to calibrate).
inline lsp::Settings lspSettings() {
  lsp::Settings s;
  s.target = "x86_avx512";
  return s;
}

// `text` as the open document NAME (written to a temporary directory, so that relative imports
// of files written beside it resolve), analysed.
// `summaries`: the statement summaries the analyses of one editing session share.
inline std::shared_ptr<lsp::Analysis>
analyseDocument(const std::string &text, const std::string &name = "main.isam",
                lsp::Settings settings = lspSettings(),
                std::shared_ptr<lsp::SummaryCache> summaries = nullptr) {
  lsp::Document doc;
  doc.path = tempFile("lsp-features", name, text);
  doc.uri = lsp::pathToUri(doc.path);
  doc.version = 1;
  doc.text = text;
  return std::make_shared<lsp::Analysis>(doc, std::map<std::string, std::string>{}, settings,
                                         nullptr, std::move(summaries));
}

} // namespace isam::test
