// The host C++ compiler's probe: C++20, threads and the standard library link and run.
#include <cstdio>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

int main() {
  std::vector<int> v(100);
  std::iota(v.begin(), v.end(), 1);
  long sum = 0;
  std::thread t([&] { sum = std::accumulate(v.begin(), v.end(), 0L); });
  t.join();
  std::span<const int> s(v);
  if (sum != 5050 || s.size() != 100)
    return 1;
  std::puts("ok");
  return 0;
}
