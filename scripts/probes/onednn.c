/* oneDNN's probe: dnnl_sgemm computes a 2x2 product. */
#include <dnnl.h>
#include <stdio.h>

int main(void) {
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0, 0, 0, 0};
  if (dnnl_sgemm('N', 'N', 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2) != dnnl_success)
    return 1;
  if (c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50)
    return 1;
  puts("ok");
  return 0;
}
