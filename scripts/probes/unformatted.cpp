// The formatting tools' probe (scripts/check-toolchains.sh): clang-format with the repository's
// .clang-format turns unformatted.cpp into formatted.cpp, and clang-tidy finds the use after
// move in it.
#include <string>
#include <utility>
int  size_after_move( std::string s ){std::string t=std::move(s);return int(s.size()+t.size());}
