// Fixture of scripts/check-function-size.py (tests/tidy): not compiled. Three functions
// are longer than 100 lines; everything else here is short but would look long, or would end
// early, to a checker that counted the braces in strings, comments and literals.
// The multi-line signatures are the point:
// clang-format off
#include <string>

namespace fixture {
namespace {

// Braces in literals and comments: { { {
int literals() {
  std::string open = "{{{ \" {";
  char brace = '{';
  int million = 1'000'000; // a digit separator is not a character literal: '
  std::string raw = R"delim({ ")" }})delim";
  /* } } } */
  return int(open.size()) + brace + million + int(raw.size());
}

} // namespace

class Widget {
public:
  Widget(int width,
         int height);

  // Short, defined in the class.
  int area() const { return width_ * height_; }

  // Too long, defined in the class.
  int draw() const {
    int total = 0;
    total += 0;
    total += 1;
    total += 2;
    total += 3;
    total += 4;
    total += 5;
    total += 6;
    total += 7;
    total += 8;
    total += 9;
    total += 10;
    total += 11;
    total += 12;
    total += 13;
    total += 14;
    total += 15;
    total += 16;
    total += 17;
    total += 18;
    total += 19;
    total += 20;
    total += 21;
    total += 22;
    total += 23;
    total += 24;
    total += 25;
    total += 26;
    total += 27;
    total += 28;
    total += 29;
    total += 30;
    total += 31;
    total += 32;
    total += 33;
    total += 34;
    total += 35;
    total += 36;
    total += 37;
    total += 38;
    total += 39;
    total += 40;
    total += 41;
    total += 42;
    total += 43;
    total += 44;
    total += 45;
    total += 46;
    total += 47;
    total += 48;
    total += 49;
    total += 50;
    total += 51;
    total += 52;
    total += 53;
    total += 54;
    total += 55;
    total += 56;
    total += 57;
    total += 58;
    total += 59;
    total += 60;
    total += 61;
    total += 62;
    total += 63;
    total += 64;
    total += 65;
    total += 66;
    total += 67;
    total += 68;
    total += 69;
    total += 70;
    total += 71;
    total += 72;
    total += 73;
    total += 74;
    total += 75;
    total += 76;
    total += 77;
    total += 78;
    total += 79;
    total += 80;
    total += 81;
    total += 82;
    total += 83;
    total += 84;
    total += 85;
    total += 86;
    total += 87;
    total += 88;
    total += 89;
    total += 90;
    total += 91;
    total += 92;
    total += 93;
    total += 94;
    total += 95;
    total += 96;
    total += 97;
    total += 98;
    total += 99;
    return total;
  }

private:
  int width_{0};
  int height_{0};
  std::string name_ = "}";
};

// A constructor whose signature spans lines and whose initializer list has brace
// initializers: the body starts at the brace after them.
Widget::Widget(int width,
               int height)
    : width_{width}, height_(height),
      name_{"{"} {
  int total = 0;
  total += 0;
  total += 1;
  total += 2;
  total += 3;
  total += 4;
  total += 5;
  total += 6;
  total += 7;
  total += 8;
  total += 9;
  total += 10;
  total += 11;
  total += 12;
  total += 13;
  total += 14;
  total += 15;
  total += 16;
  total += 17;
  total += 18;
  total += 19;
  total += 20;
  total += 21;
  total += 22;
  total += 23;
  total += 24;
  total += 25;
  total += 26;
  total += 27;
  total += 28;
  total += 29;
  total += 30;
  total += 31;
  total += 32;
  total += 33;
  total += 34;
  total += 35;
  total += 36;
  total += 37;
  total += 38;
  total += 39;
  total += 40;
  total += 41;
  total += 42;
  total += 43;
  total += 44;
  total += 45;
  total += 46;
  total += 47;
  total += 48;
  total += 49;
  total += 50;
  total += 51;
  total += 52;
  total += 53;
  total += 54;
  total += 55;
  total += 56;
  total += 57;
  total += 58;
  total += 59;
  total += 60;
  total += 61;
  total += 62;
  total += 63;
  total += 64;
  total += 65;
  total += 66;
  total += 67;
  total += 68;
  total += 69;
  total += 70;
  total += 71;
  total += 72;
  total += 73;
  total += 74;
  total += 75;
  total += 76;
  total += 77;
  total += 78;
  total += 79;
  total += 80;
  total += 81;
  total += 82;
  total += 83;
  total += 84;
  total += 85;
  total += 86;
  total += 87;
  total += 88;
  total += 89;
  total += 90;
  total += 91;
  total += 92;
  total += 93;
  total += 94;
  total += 95;
  total += 96;
  total += 97;
  total += 98;
  total += 99;
  total += 100;
  width_ += total;
}

// The lambda is part of the function: one report, with the function's name.
template <typename T>
T sum(const T &first,
      const T &second) {
  auto add = [&](const T &value) {
    T total = value;
    total += 0;
    total += 1;
    total += 2;
    total += 3;
    total += 4;
    total += 5;
    total += 6;
    total += 7;
    total += 8;
    total += 9;
    total += 10;
    total += 11;
    total += 12;
    total += 13;
    total += 14;
    total += 15;
    total += 16;
    total += 17;
    total += 18;
    total += 19;
    total += 20;
    total += 21;
    total += 22;
    total += 23;
    total += 24;
    total += 25;
    total += 26;
    total += 27;
    total += 28;
    total += 29;
    total += 30;
    total += 31;
    total += 32;
    total += 33;
    total += 34;
    total += 35;
    total += 36;
    total += 37;
    total += 38;
    total += 39;
    total += 40;
    total += 41;
    total += 42;
    total += 43;
    total += 44;
    total += 45;
    total += 46;
    total += 47;
    total += 48;
    total += 49;
    total += 50;
    total += 51;
    total += 52;
    total += 53;
    total += 54;
    total += 55;
    total += 56;
    total += 57;
    total += 58;
    total += 59;
    total += 60;
    total += 61;
    total += 62;
    total += 63;
    total += 64;
    total += 65;
    total += 66;
    total += 67;
    total += 68;
    total += 69;
    total += 70;
    total += 71;
    total += 72;
    total += 73;
    total += 74;
    total += 75;
    total += 76;
    total += 77;
    total += 78;
    total += 79;
    total += 80;
    total += 81;
    total += 82;
    total += 83;
    total += 84;
    total += 85;
    total += 86;
    total += 87;
    total += 88;
    total += 89;
    total += 90;
    total += 91;
    total += 92;
    total += 93;
    total += 94;
    total += 95;
    total += 96;
    total += 97;
    total += 98;
    total += 99;
    return total;
  };
  return add(first) + add(second);
}

} // namespace fixture
// clang-format on
