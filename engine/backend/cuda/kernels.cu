// The CUDA backend's kernels, compiled at run time by NVRTC (engine/backend/cuda/kernels.rs) and at test time to
// PTX without a GPU (tests/cuda_kernels.rs). Plain CUDA C, no headers beyond cuda_fp16.h, so NVRTC needs no
// toolkit include paths.
//
// Numerics (docs/GPU.md): weights are float16 widened to float32; activations, the KV cache, norms and every
// accumulation are float32. Every kernel computes each token row with the same instruction sequence whatever the
// number of rows in the pass: a verify pass over k tokens gives each row bitwise what k one-token steps give
// (batch invariance by construction, measured again at load by engine/model/invariance.rs).
//
// Dynamic scalars (past length, bias row stride, whether a bias is present) come from a small device buffer
// `params`, never from launch arguments, so one captured CUDA graph replays for every past length.
//
// No #include: NVRTC from the registry ships without the toolkit headers, so float16 is handled as its bit
// pattern (unsigned short) and converted with the PTX cvt instructions that cuda_fp16.h itself uses.

typedef unsigned short half_bits;

__device__ __forceinline__ float h2f(half_bits h) {
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ half_bits f2h(float f) {
    half_bits h;
    asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f));
    return h;
}

// params[] layout (kept in step with PARAM_* in kernels.rs).
#define P_PAST 0        // tokens already in the KV cache before this chunk's first row
#define P_BIAS_STRIDE 1 // row stride of the additive bias (past + S of the whole pass)
#define P_BIAS_ON 2     // 1 when a bias was uploaded, 0 for plain causal order

// Rows of a matmul launch tile. A pass with more rows launches more tiles (grid.y); the per-row arithmetic is
// identical in every tile.
#define MT 8

// ---------------------------------------------------------------------------------------------------------------
// y[m, n] (+)= sum_k x[m, k] * W[n, k] (+ bias[n]) for m < M.
// W: float16 [N, K] row-major (out_features, in_features); x, y: float32 row-major. K % 8 == 0 (checked at load).
// One warp per output feature n; lanes walk K in 8-element (16-byte) chunks, so a warp streams its weight row with
// coalesced 128-bit loads and reuses each loaded chunk for all rows of the tile. Each lane first issues U
// weight loads, then uses them: a decode step is one row, so the kernel is bound by how many loads are in flight,
// not by arithmetic (measured on an H200: the one-load-at-a-time loop reached 29% of copy bandwidth on an 8B
// shape). The reduction order depends on K and the lane layout only, never on M.
__device__ __forceinline__ void fma8(float& s, const float* wf, const float* xr) {
    const float4 a = reinterpret_cast<const float4*>(xr)[0];
    const float4 b = reinterpret_cast<const float4*>(xr)[1];
    s = fmaf(wf[0], a.x, s);
    s = fmaf(wf[1], a.y, s);
    s = fmaf(wf[2], a.z, s);
    s = fmaf(wf[3], a.w, s);
    s = fmaf(wf[4], b.x, s);
    s = fmaf(wf[5], b.y, s);
    s = fmaf(wf[6], b.z, s);
    s = fmaf(wf[7], b.w, s);
}

// OUTS weight rows per warp (1, or 2 for gate/up + SwiGLU), U chunks in flight per row and lane.
// K is the length of the dot products, ld the row stride of x (K itself, or the whole row for a split-K part).
template <int OUTS, int U>
__device__ __forceinline__ void dot_rows(const float* __restrict__ xt, int mt, int K, int ld, const half_bits* const* wr,
                                         int lane, float (&acc)[OUTS][MT]) {
#pragma unroll
    for (int o = 0; o < OUTS; o++)
#pragma unroll
        for (int i = 0; i < MT; i++) acc[o][i] = 0.f;
    for (int k0 = lane * 8; k0 < K; k0 += 256 * U) {
        uint4 raw[OUTS][U];
#pragma unroll
        for (int o = 0; o < OUTS; o++)
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int k = k0 + u * 256;
                raw[o][u] = k < K ? __ldg(reinterpret_cast<const uint4*>(wr[o] + k)) : make_uint4(0u, 0u, 0u, 0u);
            }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = k0 + u * 256;
            if (k < K) {
#pragma unroll
                for (int o = 0; o < OUTS; o++) {
                    const unsigned int words[4] = {raw[o][u].x, raw[o][u].y, raw[o][u].z, raw[o][u].w};
                    float wf[8];
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        wf[2 * j] = h2f((half_bits)(words[j] & 0xffffu));
                        wf[2 * j + 1] = h2f((half_bits)(words[j] >> 16));
                    }
#pragma unroll
                    for (int i = 0; i < MT; i++) {
                        if (i < mt) fma8(acc[o][i], wf, xt + (size_t)i * ld + k);
                    }
                }
            }
        }
    }
#pragma unroll
    for (int o = 0; o < OUTS; o++)
#pragma unroll
        for (int i = 0; i < MT; i++) {
            float s = acc[o][i];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
            acc[o][i] = s;
        }
}

// One output feature per warp. U (chunks in flight per lane) is chosen per launch by the host: 8 for one-row
// passes (decode: bound by loads in flight; 4 reached 42% of copy bandwidth on the 8B shape, 8 reached 49%), 4 for
// tiles of several rows (verify: 8 raised the k=8 verify cost from 2.9x to 4.2x a step, register pressure). A lane
// adds its chunks in increasing k whatever U is, so both variants give every row the same bits.
template <int U>
__device__ __forceinline__ void matmul_one(const float* __restrict__ x, const half_bits* __restrict__ w,
                                           const float* __restrict__ bias, float* __restrict__ y, int M, int N, int K,
                                           int accumulate) {
    const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = threadIdx.x & 31;
    if (warp >= N) return;
    const int m0 = blockIdx.y * MT;
    const int mt = min(MT, M - m0);
    const half_bits* rows[1] = {w + (size_t)warp * K};
    float acc[1][MT];
    dot_rows<1, U>(x + (size_t)m0 * K, mt, K, K, rows, lane, acc);
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < MT; i++) {
            if (i < mt) {
                float s = acc[0][i];
                if (bias != nullptr) s += bias[warp];
                float* dst = y + (size_t)(m0 + i) * N + warp;
                *dst = accumulate ? (*dst + s) : s;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(128) matmul_f16w(const float* __restrict__ x, const half_bits* __restrict__ w,
                                                              const float* __restrict__ bias, float* __restrict__ y,
                                                              int M, int N, int K, int accumulate) {
    matmul_one<8>(x, w, bias, y, M, N, K, accumulate);
}

extern "C" __global__ void __launch_bounds__(128) matmul_tile_f16w(const float* __restrict__ x, const half_bits* __restrict__ w,
                                                                   const float* __restrict__ bias, float* __restrict__ y,
                                                                   int M, int N, int K, int accumulate) {
    matmul_one<4>(x, w, bias, y, M, N, K, accumulate);
}

// Split-K: the same product as matmul_f16w with K cut into `span`-long parts (grid.z), each part's sums written to
// part[s, m, n], then added in part order by splitk_sum. Why: one warp per output feature gives a projection with
// few, long rows (an 8B model's down projection: 4096 warps of 14336 weights) too few warps to keep an H200's
// memory busy (42% of copy bandwidth measured for that kernel, 2026-11-30). The parts depend on K and N only
// (engine/backend/cuda/plan.rs, matmul_splits), never on M, so every row still gets the same bits whatever the
// number of rows in the pass.
template <int U>
__device__ __forceinline__ void matmul_part(const float* __restrict__ x, const half_bits* __restrict__ w,
                                            float* __restrict__ part, int M, int N, int K, int span) {
    const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = threadIdx.x & 31;
    if (warp >= N) return;
    const int s = blockIdx.z;
    const int k0 = s * span;
    const int len = min(span, K - k0);
    const int m0 = blockIdx.y * MT;
    const int mt = min(MT, M - m0);
    const half_bits* rows[1] = {w + (size_t)warp * K + k0};
    float acc[1][MT];
    dot_rows<1, U>(x + (size_t)m0 * K + k0, mt, len, K, rows, lane, acc);
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < MT; i++) {
            if (i < mt) part[((size_t)s * M + m0 + i) * N + warp] = acc[0][i];
        }
    }
}

extern "C" __global__ void __launch_bounds__(128) matmul_part_f16w(const float* __restrict__ x, const half_bits* __restrict__ w,
                                                                   float* __restrict__ part, int M, int N, int K, int span) {
    matmul_part<8>(x, w, part, M, N, K, span);
}

extern "C" __global__ void __launch_bounds__(128) matmul_part_tile_f16w(const float* __restrict__ x,
                                                                        const half_bits* __restrict__ w,
                                                                        float* __restrict__ part, int M, int N, int K,
                                                                        int span) {
    matmul_part<4>(x, w, part, M, N, K, span);
}

// y[m, n] (+)= part[0, m, n] + part[1, m, n] + ... (+ bias[n]), the parts added in order. One thread per output.
extern "C" __global__ void splitk_sum(const float* __restrict__ part, const float* __restrict__ bias, float* __restrict__ y,
                                      int M, int N, int parts, int accumulate) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= M * N) return;
    float s = part[idx];
    for (int j = 1; j < parts; j++) s += part[(size_t)j * M * N + idx];
    if (bias != nullptr) s += bias[idx % N];
    y[idx] = accumulate ? (y[idx] + s) : s;
}

// act[m, n] = silu(x . W[n]) * (x . W[F + n]) for the fused [2F, K] gate/up matrix (gate rows, then up rows), N = F:
// one warp computes both dot products of its feature, so SwiGLU is the epilogue (one launch and one round trip
// per layer fewer, and nothing is recomputed). U per launch as above (4 for one row, 2 for tiles).
template <int U>
__device__ __forceinline__ void gate_up(const float* __restrict__ x, const half_bits* __restrict__ w, float* __restrict__ act,
                                        int M, int F, int K) {
    const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = threadIdx.x & 31;
    if (warp >= F) return;
    const int m0 = blockIdx.y * MT;
    const int mt = min(MT, M - m0);
    const half_bits* rows[2] = {w + (size_t)warp * K, w + (size_t)(F + warp) * K};
    float acc[2][MT];
    dot_rows<2, U>(x + (size_t)m0 * K, mt, K, K, rows, lane, acc);
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < MT; i++) {
            if (i < mt) {
                const float g = acc[0][i];
                act[(size_t)(m0 + i) * F + warp] = (g / (1.0f + expf(-g))) * acc[1][i];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(128) matmul_gate_up_f16w(const float* __restrict__ x, const half_bits* __restrict__ w,
                                                                      float* __restrict__ act, int M, int F, int K) {
    gate_up<4>(x, w, act, M, F, K);
}

extern "C" __global__ void __launch_bounds__(128) matmul_gate_up_tile_f16w(const float* __restrict__ x,
                                                                           const half_bits* __restrict__ w,
                                                                           float* __restrict__ act, int M, int F, int K) {
    gate_up<2>(x, w, act, M, F, K);
}

// Fixed-order block reduction (blockDim.x a power of two, <= 1024) over `scratch` (blockDim.x floats).
__device__ __forceinline__ float block_sum(float v, float* scratch) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x >> 1; half > 0; half >>= 1) {
        if (threadIdx.x < half) scratch[threadIdx.x] += scratch[threadIdx.x + half];
        __syncthreads();
    }
    const float r = scratch[0];
    __syncthreads();
    return r;
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x >> 1; half > 0; half >>= 1) {
        if (threadIdx.x < half) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + half]);
        __syncthreads();
    }
    const float r = scratch[0];
    __syncthreads();
    return r;
}

// ---------------------------------------------------------------------------------------------------------------
// y[r] = x[rows[r]] / sqrt(mean(x^2) + eps) * w. One block per output row; rows == nullptr means r itself.
extern "C" __global__ void rmsnorm(const float* __restrict__ x, const int* __restrict__ rows,
                                   const float* __restrict__ w, float* __restrict__ y, int H, float eps) {
    // Warp shuffles, then the warps' partial sums added in warp order by every thread: one barrier instead of the
    // eight of a shared-memory tree (the kernel runs twice per layer and is latency-bound at decode).
    __shared__ float partial[32];
    const int r = blockIdx.x;
    const int src = rows != nullptr ? rows[r] : r;
    const float* xr = x + (size_t)src * H;
    float ss = 0.f;
    for (int i = threadIdx.x; i < H; i += blockDim.x) ss = fmaf(xr[i], xr[i], ss);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
    __syncthreads();
    float total = 0.f;
    for (int i = 0; i < (int)(blockDim.x >> 5); i++) total += partial[i];
    const float inv = 1.0f / sqrtf(total / (float)H + eps);
    for (int i = threadIdx.x; i < H; i += blockDim.x) y[(size_t)r * H + i] = (xr[i] * inv) * w[i];
}

// x[s, :] = float(embed[ids[s], :]). Grid (S), threads over H.
extern "C" __global__ void embed_rows(const int* __restrict__ ids, const half_bits* __restrict__ embed,
                                      float* __restrict__ x, int H) {
    const int s = blockIdx.x;
    const half_bits* er = embed + (size_t)ids[s] * H;
    for (int i = threadIdx.x; i < H; i += blockDim.x) x[(size_t)s * H + i] = h2f(er[i]);
}

// Rotary embedding (rotate_half convention) on the q and k parts of qkv [S, (NH + 2 KVH) * D], then the rotated
// k and the v of row s are written to KV slot past + s of this layer's caches [KVH, cap, D].
// cos_t/sin_t: [max_pos, D/2] float32 tables made on the host exactly as the exporter makes them.
extern "C" __global__ void rope_store_kv(float* __restrict__ qkv, const int* __restrict__ pos,
                                         const float* __restrict__ cos_t, const float* __restrict__ sin_t,
                                         float* __restrict__ kc, float* __restrict__ vc,
                                         const int* __restrict__ params, int NH, int KVH, int D, int cap) {
    const int s = blockIdx.x;
    const int half = D / 2;
    const int width = (NH + 2 * KVH) * D;
    const int slot = params[P_PAST] + s;
    float* row = qkv + (size_t)s * width;
    const float* c = cos_t + (size_t)pos[s] * half;
    const float* sn = sin_t + (size_t)pos[s] * half;
    // q and k heads: (NH + KVH) * half rotation pairs.
    for (int t = threadIdx.x; t < (NH + KVH) * half; t += blockDim.x) {
        const int head = t / half;
        const int i = t % half;
        float* hp = row + head * D;
        const float x1 = hp[i];
        const float x2 = hp[i + half];
        const float r1 = x1 * c[i] - x2 * sn[i];
        const float r2 = x2 * c[i] + x1 * sn[i];
        hp[i] = r1;
        hp[i + half] = r2;
        if (head >= NH) {
            float* kr = kc + ((size_t)(head - NH) * cap + slot) * D;
            kr[i] = r1;
            kr[i + half] = r2;
        }
    }
    // v heads: plain copy.
    for (int t = threadIdx.x; t < KVH * D; t += blockDim.x) {
        const int head = t / D;
        const int d = t % D;
        vc[((size_t)head * cap + slot) * D + d] = row[(NH + KVH) * D + t];
    }
}

// Attention of row s, query head h, over KV slots 0 .. past + s (causal order) plus the optional additive bias
// (token trees, SPACE groups hide more). Grid (NH, S); blockDim.x a power of two >= D.
// Dynamic shared memory: (cap + D + blockDim.x) floats (scores, q, reduction scratch).
extern "C" __global__ void attention(const float* __restrict__ qkv, const float* __restrict__ kc,
                                     const float* __restrict__ vc, const float* __restrict__ bias,
                                     const int* __restrict__ params, float* __restrict__ out, int NH, int KVH,
                                     int D, int cap, float scale) {
    extern __shared__ float smem[];
    const int h = blockIdx.x;
    const int s = blockIdx.y;
    const int past = params[P_PAST];
    const int T = past + s + 1;
    float* scores = smem;
    float* q = smem + cap;
    float* scratch = q + D;
    const int width = (NH + 2 * KVH) * D;
    const int kvh = h / (NH / KVH);
    for (int d = threadIdx.x; d < D; d += blockDim.x) q[d] = qkv[(size_t)s * width + h * D + d];
    __syncthreads();
    const float* kbase = kc + (size_t)kvh * cap * D;
    const float* vbase = vc + (size_t)kvh * cap * D;
    const int bias_on = params[P_BIAS_ON];
    const float* brow = bias + (size_t)s * params[P_BIAS_STRIDE];
    float local_max = __int_as_float(0xff800000); // -inf
    for (int j = threadIdx.x; j < T; j += blockDim.x) {
        const float* kr = kbase + (size_t)j * D;
        float dot = 0.f;
        for (int d = 0; d < D; d++) dot = fmaf(q[d], kr[d], dot);
        float sc = dot * scale;
        if (bias_on) sc += brow[j];
        scores[j] = sc;
        local_max = fmaxf(local_max, sc);
    }
    const float m = block_max(local_max, scratch);
    float local_sum = 0.f;
    for (int j = threadIdx.x; j < T; j += blockDim.x) {
        const float p = expf(scores[j] - m);
        scores[j] = p;
        local_sum += p;
    }
    const float l = block_sum(local_sum, scratch);
    const float inv = 1.0f / l;
    // Weighted sum of V: threads split into `parts` groups over keys, D threads per group over dimensions.
    const int parts = blockDim.x / D;
    const int part = threadIdx.x / D;
    const int d = threadIdx.x % D;
    float acc = 0.f;
    if (part < parts) {
        for (int j = part; j < T; j += parts) acc = fmaf(scores[j], vbase[(size_t)j * D + d], acc);
    }
    scratch[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x < D) {
        float sum = 0.f;
        for (int p = 0; p < parts; p++) sum += scratch[p * D + threadIdx.x];
        out[(size_t)s * NH * D + h * D + threadIdx.x] = sum * inv;
    }
}

// The same attention for head_dim D known at compile time (64 and 128 cover Llama, Qwen2 and SmolLM2): each
// thread issues a key row's D/4 float4 loads at once instead of one float at a time, and the weighted sum of V has
// each warp walk its own keys with a lane per D/32 dimensions (coalesced rows, 4 rows in flight). The sums run in
// a fixed order per (row, head), so results do not depend on how many rows the pass has.
// Dynamic shared memory: (D + cap + max(blockDim.x, blockDim.x / 32 * D)) floats; blockDim.x == ATTN_THREADS.
// 1024 threads: at decode there is one block per head (9 for SmolLM2), so the block itself must hold many loads in
// flight; with 256 threads the V loop ran 8 dependent rounds at 512 tokens of context.
template <int D>
__device__ __forceinline__ void attention_fixed(const float* __restrict__ qkv, const float* __restrict__ kc,
                                                const float* __restrict__ vc, const float* __restrict__ bias,
                                                const int* __restrict__ params, float* __restrict__ out, int NH,
                                                int KVH, int cap, float scale) {
    extern __shared__ float smem[];
    constexpr int V = D / 32;  // dimensions per lane in the V sum
    const int h = blockIdx.x;
    const int s = blockIdx.y;
    const int past = params[P_PAST];
    const int T = past + s + 1;
    float* q = smem;  // first, so its float4 reads are aligned whatever the capacity
    float* scores = smem + D;
    float* scratch = scores + cap;  // max(blockDim.x, nwarps * D) floats
    const int width = (NH + 2 * KVH) * D;
    const int kvh = h / (NH / KVH);
    for (int d = threadIdx.x; d < D; d += blockDim.x) q[d] = qkv[(size_t)s * width + h * D + d];
    __syncthreads();
    const float* kbase = kc + (size_t)kvh * cap * D;
    const float* vbase = vc + (size_t)kvh * cap * D;
    const int bias_on = params[P_BIAS_ON];
    const float* brow = bias + (size_t)s * params[P_BIAS_STRIDE];
    const float4* q4 = reinterpret_cast<const float4*>(q);
    float local_max = __int_as_float(0xff800000);
    for (int j = threadIdx.x; j < T; j += blockDim.x) {
        const float4* kr = reinterpret_cast<const float4*>(kbase + (size_t)j * D);
        // 8 float4 loads in flight, then their FMAs: 32 registers, so 1024-thread blocks do not spill.
        float dot = 0.f;
#pragma unroll
        for (int c0 = 0; c0 < D / 4; c0 += 8) {
            float4 kv[8];
#pragma unroll
            for (int c = 0; c < 8; c++) kv[c] = kr[c0 + c];
#pragma unroll
            for (int c = 0; c < 8; c++) {
                const float4 qq = q4[c0 + c];
                dot = fmaf(qq.x, kv[c].x, dot);
                dot = fmaf(qq.y, kv[c].y, dot);
                dot = fmaf(qq.z, kv[c].z, dot);
                dot = fmaf(qq.w, kv[c].w, dot);
            }
        }
        float sc = dot * scale;
        if (bias_on) sc += brow[j];
        scores[j] = sc;
        local_max = fmaxf(local_max, sc);
    }
    const float m = block_max(local_max, scratch);
    float local_sum = 0.f;
    for (int j = threadIdx.x; j < T; j += blockDim.x) {
        const float p = expf(scores[j] - m);
        scores[j] = p;
        local_sum += p;
    }
    const float l = block_sum(local_sum, scratch);
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int nw = blockDim.x >> 5;
    float acc[V];
#pragma unroll
    for (int c = 0; c < V; c++) acc[c] = 0.f;
    int j = warp;
    // V rows in flight per warp: the loop is latency-bound at decode (few blocks); 8 measured 11% faster than 4 on
    // an H200 (SmolLM2 attention 0.72 -> 0.64 ms per step at 512 tokens of context).
    constexpr int R = 8;
    for (; j + (R - 1) * nw < T; j += R * nw) {
        float vals[R][V];
#pragma unroll
        for (int r = 0; r < R; r++) {
            const float* vr = vbase + (size_t)(j + r * nw) * D + lane * V;
#pragma unroll
            for (int c = 0; c < V; c++) vals[r][c] = vr[c];
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
            const float p = scores[j + r * nw];
#pragma unroll
            for (int c = 0; c < V; c++) acc[c] = fmaf(p, vals[r][c], acc[c]);
        }
    }
    for (; j < T; j += nw) {
        const float p = scores[j];
        const float* vr = vbase + (size_t)j * D + lane * V;
#pragma unroll
        for (int c = 0; c < V; c++) acc[c] = fmaf(p, vr[c], acc[c]);
    }
#pragma unroll
    for (int c = 0; c < V; c++) scratch[warp * D + lane * V + c] = acc[c];
    __syncthreads();
    if (threadIdx.x < D) {
        float sum = 0.f;
        for (int w = 0; w < nw; w++) sum += scratch[w * D + threadIdx.x];
        out[(size_t)s * NH * D + h * D + threadIdx.x] = sum / l;
    }
}

extern "C" __global__ void __launch_bounds__(1024) attention_d64(const float* __restrict__ qkv, const float* __restrict__ kc,
                                                                const float* __restrict__ vc, const float* __restrict__ bias,
                                                                const int* __restrict__ params, float* __restrict__ out,
                                                                int NH, int KVH, int D, int cap, float scale) {
    attention_fixed<64>(qkv, kc, vc, bias, params, out, NH, KVH, cap, scale);
}

extern "C" __global__ void __launch_bounds__(1024) attention_d128(const float* __restrict__ qkv, const float* __restrict__ kc,
                                                                 const float* __restrict__ vc, const float* __restrict__ bias,
                                                                 const int* __restrict__ params, float* __restrict__ out,
                                                                 int NH, int KVH, int D, int cap, float scale) {
    attention_fixed<128>(qkv, kc, vc, bias, params, out, NH, KVH, cap, scale);
}

// Accepted-path compaction: for every layer and KV head, slot dst0 + i takes slot src[i] (i ascending; src[i] >=
// dst0 + i, so rows only move down). One block per (layer * KVH + head, k|v); rows in order, synchronised, so a
// row is read before a later copy overwrites it.
extern "C" __global__ void compact_kv(float* __restrict__ kc, float* __restrict__ vc, const int* __restrict__ src,
                                      int n, int dst0, int D, int cap) {
    float* base = (blockIdx.y == 0 ? kc : vc) + (size_t)blockIdx.x * cap * D;
    for (int i = 0; i < n; i++) {
        const int from = src[i];
        float v = 0.f;
        if (threadIdx.x < D) v = base[(size_t)from * D + threadIdx.x];
        __syncthreads();
        if (threadIdx.x < D) base[(size_t)(dst0 + i) * D + threadIdx.x] = v;
        __syncthreads();
    }
}

// Deterministic pseudo-random fill for synthetic benchmark weights: w[i] = scale * u(i, seed), u in [-1, 1).
extern "C" __global__ void fill_random_f16(half_bits* __restrict__ w, size_t n, unsigned int seed, float scale) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned int h = (unsigned int)(i * 2654435761u) ^ (seed * 2246822519u) ^ (unsigned int)(i >> 32);
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        h *= 3266489917u;
        h ^= h >> 16;
        w[i] = f2h(scale * ((float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f));
    }
}

extern "C" __global__ void fill_f32(float* __restrict__ w, size_t n, float value) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) w[i] = value;
}
