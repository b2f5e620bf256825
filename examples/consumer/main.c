/* Runs the two kernels isamap compiled into this program and compares them with plain loops. */
#include "activation.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>

enum { M = 61, N = 48, K = 37 };

static float a[M][K], b[K][N], c[M][N], bias[N], y[M][N];

int main(void) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      a[i][k] = (float)((i * 7 + k * 3) % 11) - 5.0f;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j)
      b[k][j] = (float)((k * 5 + j) % 13) / 4.0f - 1.5f;
  for (int j = 0; j < N; ++j)
    bias[j] = (float)(j % 7) - 3.0f;

  gemm_61x48x37(&a[0][0], &b[0][0], &c[0][0]);
  bias_relu_61x48(&c[0][0], bias, &y[0][0]);

  int wrong = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += (double)a[i][k] * b[k][j];
      double want = sum + bias[j] > 0 ? sum + bias[j] : 0;
      if (fabs(c[i][j] - sum) > 1e-3 * (1 + fabs(sum)) ||
          fabs(y[i][j] - want) > 1e-3 * (1 + fabs(want)))
        ++wrong;
    }
  printf("%d of %d elements wrong\n", wrong, M * N);
  return wrong != 0;
}
