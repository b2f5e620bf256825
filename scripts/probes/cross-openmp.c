/* The cross toolchains' probe: the C library (stdio, math), libgomp and the emulator.
   Built with -fopenmp by aarch64/riscv64 gcc, run under qemu; prints "ok" when 4 threads
   summed 1..1000 and sqrt(2) is right. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

int main(void) {
  long sum = 0;
#pragma omp parallel for num_threads(4) reduction(+ : sum)
  for (long i = 1; i <= 1000; ++i)
    sum += i;
  volatile double two = 2.0;
  if (sum != 500500 || fabs(sqrt(two) * sqrt(two) - 2.0) > 1e-12) {
    printf("wrong: sum %ld\n", sum);
    return 1;
  }
  printf("ok\n");
  return 0;
}
