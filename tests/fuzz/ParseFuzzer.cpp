// libFuzzer entry point for the front end: any bytes, as an isam file, must go through
// everything that reads a text a user typed without crashing, hanging or tripping a sanitizer:
// the lexer, the parser and every semantic check (Session::checkAll: kernels, instances,
// targets and systems), the symbol index the editor features use, and the formatter.
// scripts/fuzz.sh parse runs it; the replay driver (Replay.cpp) replays tests/fuzz/corpus/parse.
#include "driver/Session.h"
#include "format/Formatter.h"
#include "index/SymbolIndex.h"
#include "syntax/Tokens.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  isam::syntax::lex(text);
  isam::Session session;
  session.loadText("fuzz.isam", text);
  session.checkAll();
  isam::index::SymbolIndex::build(session.files());
  isam::format::formatText(text);
  return 0;
}
