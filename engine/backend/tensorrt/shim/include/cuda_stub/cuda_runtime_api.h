// The two CUDA runtime types TensorRT's headers name (opaque handles). specrt never links the CUDA runtime: the
// shim receives streams from the CUDA driver API (CUstream is the same `struct CUstream_st*`), so this stub stands
// in for the toolkit's header, which is not installable on machines without CUDA.
#pragma once
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUstream_st* cudaStream_t;
