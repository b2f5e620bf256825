// ANTLR's probe: the parser generated from Probe.g4 parses "1 + 2 + 3" without errors.
#include "ProbeLexer.h"
#include "ProbeParser.h"

#include <antlr4-runtime.h>

#include <cstdio>

int main() {
  antlr4::ANTLRInputStream input("1 + 2 + 3");
  ProbeLexer lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  ProbeParser parser(&tokens);
  auto *tree = parser.sum();
  if (parser.getNumberOfSyntaxErrors() != 0 || tree->NUMBER().size() != 3)
    return 1;
  std::puts("ok");
  return 0;
}
