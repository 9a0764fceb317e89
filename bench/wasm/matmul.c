/* The matrix product as one writes it in C for WebAssembly: row by row,
 * each row of C accumulated over k from a broadcast A[i][k] times a row of
 * B, so that clang -O3 -msimd128 vectorizes the inner loop (the i-k-j
 * order; i-j-k would leave a strided reduction). bench/wasm_matmul compiles
 * it beside kiln's tuned module. */
void matmul(const float* restrict a, const float* restrict b, float* restrict c, int m, int n, int k) {
  for (int i = 0; i < m; ++i) {
    float* row = c + i * n;
    for (int j = 0; j < n; ++j) row[j] = 0.0f;
    for (int p = 0; p < k; ++p) {
      const float x = a[i * k + p];
      const float* brow = b + p * n;
      for (int j = 0; j < n; ++j) row[j] += x * brow[j];
    }
  }
}
