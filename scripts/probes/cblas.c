/* The reference BLAS libraries' probe (OpenBLAS, BLIS): cblas_sgemm of the library this is
   linked with computes a 2x2 product. The prototype is declared here so that one source serves
   every library, whatever cblas.h the alternatives system points at. */
#include <stdio.h>

enum { RowMajor = 101, NoTrans = 111 };
void cblas_sgemm(int layout, int transA, int transB, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

int main(void) {
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0, 0, 0, 0};
  cblas_sgemm(RowMajor, NoTrans, NoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  if (c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50)
    return 1;
  puts("ok");
  return 0;
}
