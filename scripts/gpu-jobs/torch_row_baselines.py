#!/usr/bin/env python3
"""Eager PyTorch and torch.compile baselines of the memory-bound row kernels, timed the way the evaluator
times a candidate: CUDA events around one call, L2 flushed before every call (a memset of 2.5x the L2),
median and IQR over the timed calls.

  torch_row_baselines.py --cases softmax:4096x50257,cross_entropy:8192x50257 --dtype fp16 \
      --mode default --budget 25 --tsv out.tsv

Ops: softmax (torch.softmax over the last dim), cross_entropy (F.cross_entropy, mean over rows, int64
targets), rmsnorm (F.rms_norm with a weight, eps 1e-6), reduce (sum over the last dim). --mode: "default"
(torch.compile's default mode) or any torch.compile mode name (e.g. max-autotune-no-cudagraphs). Each
shape is compiled once, static shapes (dynamic=False); the compile time (the first call) is printed.
Cases whose compile would start after --budget seconds are skipped and said so. One TSV row per case.
"""
import argparse
import os
import statistics
import sys
import time

t_start = time.time()


def log(msg):
    print(f"[torch-baselines t+{time.time() - t_start:.1f}s] {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True, help="op:RxC,... (ops: softmax, cross_entropy, rmsnorm, reduce)")
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32"])
    ap.add_argument("--mode", default="default")
    ap.add_argument("--budget", type=float, default=25.0, help="seconds; no compile starts after this")
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--tsv", required=True)
    a = ap.parse_args()

    import torch
    import torch.nn.functional as F

    log(f"torch {torch.__version__}, cuda {torch.version.cuda}, device {torch.cuda.get_device_name(0)}")
    try:
        import triton

        log(f"triton {triton.__version__}")
    except Exception as e:  # torch.compile needs it for GPU code
        log(f"no triton ({e}): torch.compile cannot generate GPU kernels")
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[a.dtype]
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(int(l2 * 2.5), dtype=torch.uint8, device=dev)

    def timed(fn, iters):
        for _ in range(3):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        for i in range(iters):
            flush.fill_(i & 0xFF)
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        us = sorted(s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends))
        q = statistics.quantiles(us, n=4)
        return statistics.median(us), q[2] - q[0]

    def make(op, rows, cols):
        g = torch.Generator(device=dev).manual_seed(1234)
        x = torch.randn(rows, cols, device=dev, dtype=dtype, generator=g)
        if op == "softmax":
            return (lambda x: torch.softmax(x, dim=-1)), (x,)
        if op == "cross_entropy":
            t = torch.randint(0, cols, (rows,), device=dev, generator=g)
            return (lambda x, t: F.cross_entropy(x, t)), (x, t)
        if op == "rmsnorm":
            w = torch.randn(cols, device=dev, dtype=dtype, generator=g)
            return (lambda x, w: F.rms_norm(x, (cols,), w, 1e-6)), (x, w)
        if op == "reduce":
            return (lambda x: x.sum(dim=-1)), (x,)
        raise SystemExit(f"unknown op {op!r} (softmax, cross_entropy, rmsnorm, reduce)")

    mode = None if a.mode == "default" else a.mode
    with open(a.tsv, "w") as out:
        out.write("op\tshape\tdtype\teager_us\teager_iqr_us\tcompile_mode\tcompiled_us\tcompiled_iqr_us\tcompile_s\tmax_abs_diff\n")
        for case in a.cases.split(","):
            op, shape = case.split(":")
            rows, cols = (int(v) for v in shape.split("x"))
            fn, args = make(op, rows, cols)
            eager_us, eager_iqr = timed(lambda: fn(*args), a.iters)
            log(f"{op} {shape} {a.dtype}: eager {eager_us:.1f} us (IQR {eager_iqr:.1f})")
            comp_us = comp_iqr = compile_s = diff = float("nan")
            if time.time() - t_start > a.budget:
                log(f"{op} {shape}: torch.compile skipped, past the {a.budget:.0f} s budget")
            else:
                try:
                    torch._dynamo.reset()
                    cfn = torch.compile(fn, mode=mode, dynamic=False, fullgraph=True)
                    t0 = time.time()
                    got = cfn(*args)
                    torch.cuda.synchronize()
                    compile_s = time.time() - t0
                    ref = fn(*args)
                    diff = (got.float() - ref.float()).abs().max().item()
                    comp_us, comp_iqr = timed(lambda: cfn(*args), a.iters)
                    log(f"{op} {shape} {a.dtype}: torch.compile({a.mode}) {comp_us:.1f} us (IQR {comp_iqr:.1f}), "
                        f"compiled in {compile_s:.1f} s, max |compiled - eager| {diff:.3g}")
                except Exception as e:
                    log(f"{op} {shape}: torch.compile failed: {type(e).__name__}: {str(e)[:800]}")
            out.write(f"{op}\t{shape}\t{a.dtype}\t{eager_us:.1f}\t{eager_iqr:.1f}\t{a.mode}\t{comp_us:.1f}\t"
                      f"{comp_iqr:.1f}\t{compile_s:.1f}\t{diff:.3g}\n")
            out.flush()
            del args
            torch.cuda.empty_cache()
    log("done")


if __name__ == "__main__":
    sys.exit(main())
