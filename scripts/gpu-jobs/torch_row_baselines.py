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
Cases whose compile would start after --budget seconds are skipped and said so. One TSV row per case
and mode. --mode takes a comma-separated list (e.g. default,max-autotune-no-cudagraphs).

--parallel: one worker process per case compiles every mode at once (torch.compile's first call, the
compile and its autotuning, is CPU work of minutes in all when done one case after the other, which is
why the serial run ran out of its budget after one case), then the workers wait for each other and time
one at a time under a lock, so no two cases share the GPU while timed. Autotuning may overlap another
worker's compile (its choice of configuration can be slightly worse than alone; the timing is not).
"""
import argparse
import os
import statistics
import sys
import time

t_start = time.time()


def log(msg):
    print(f"[torch-baselines t+{time.time() - t_start:.1f}s] {msg}", flush=True)


HEADER = ("op\tshape\tdtype\teager_us\teager_iqr_us\tcompile_mode\tcompiled_us\tcompiled_iqr_us\tcompile_s"
          "\tmax_abs_diff\n")


def run_case(case, a, modes, sync=None):
    """Eager + torch.compile (every mode) of one case; TSV lines. `sync` = (barrier, lock) in --parallel:
    compile everything first, wait for the other workers, then time under the lock."""
    import torch
    import torch.nn.functional as F

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

    op, shape = case.split(":")
    rows, cols = (int(v) for v in shape.split("x"))
    fn, args = make(op, rows, cols)
    compiled = {}  # mode -> (compiled fn, compile_s, max diff) or None
    for mode in modes:
        if time.time() - t_start > a.budget:
            log(f"{op} {shape}: torch.compile({mode}) skipped, past the {a.budget:.0f} s budget")
            compiled[mode] = None
            continue
        try:
            torch._dynamo.reset()
            cfn = torch.compile(fn, mode=None if mode == "default" else mode, dynamic=False, fullgraph=True)
            t0 = time.time()
            got = cfn(*args)
            torch.cuda.synchronize()
            compile_s = time.time() - t0
            ref = fn(*args)
            diff = (got.float() - ref.float()).abs().max().item()
            compiled[mode] = (cfn, compile_s, diff)
            log(f"{op} {shape}: torch.compile({mode}) compiled in {compile_s:.1f} s, max |compiled - eager| {diff:.3g}")
        except Exception as e:
            log(f"{op} {shape}: torch.compile({mode}) failed: {type(e).__name__}: {str(e)[:800]}")
            compiled[mode] = None
    if sync is not None:
        barrier, lock = sync
        try:
            barrier.wait(timeout=max(1.0, a.budget - (time.time() - t_start)))  # at the budget: time anyway
        except Exception:
            log(f"{op} {shape}: not every worker reached the timing barrier; timing anyway")
        lock.acquire()
    lines = []
    try:
        eager_us, eager_iqr = timed(lambda: fn(*args), a.iters)
        log(f"{op} {shape} {a.dtype}: eager {eager_us:.1f} us (IQR {eager_iqr:.1f})")
        for mode in modes:
            comp_us = comp_iqr = compile_s = diff = float("nan")
            if compiled.get(mode) is not None:
                cfn, compile_s, diff = compiled[mode]
                comp_us, comp_iqr = timed(lambda: cfn(*args), a.iters)
                log(f"{op} {shape} {a.dtype}: torch.compile({mode}) {comp_us:.1f} us (IQR {comp_iqr:.1f})")
            lines.append(f"{op}\t{shape}\t{a.dtype}\t{eager_us:.1f}\t{eager_iqr:.1f}\t{mode}\t{comp_us:.1f}\t"
                         f"{comp_iqr:.1f}\t{compile_s:.1f}\t{diff:.3g}\n")
    finally:
        if sync is not None:
            sync[1].release()
    del args
    torch.cuda.empty_cache()
    return lines


def worker(case, a, modes, barrier, lock, queue):
    global t_start
    t_start = a.t_start  # the budget and the log's clock are the main process's
    try:
        queue.put((case, run_case(case, a, modes, (barrier, lock))))
    except BaseException as e:  # the main process still writes the other cases
        log(f"{case}: worker failed: {type(e).__name__}: {str(e)[:800]}")
        queue.put((case, []))
        try:
            barrier.abort()
        except Exception:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True, help="op:RxC,... (ops: softmax, cross_entropy, rmsnorm, reduce)")
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32"])
    ap.add_argument("--mode", default="default", help="torch.compile mode(s), comma-separated")
    ap.add_argument("--budget", type=float, default=25.0, help="seconds; no compile starts after this")
    ap.add_argument("--iters", type=int, default=40)
    ap.add_argument("--parallel", action="store_true", help="compile the cases in parallel worker processes")
    ap.add_argument("--tsv", required=True)
    a = ap.parse_args()
    cases = a.cases.split(",")
    modes = a.mode.split(",")
    a.t_start = t_start

    import torch

    log(f"torch {torch.__version__}, cuda {torch.version.cuda}, device {torch.cuda.get_device_name(0)}")
    try:
        import triton

        log(f"triton {triton.__version__}")
    except Exception as e:  # torch.compile needs it for GPU code
        log(f"no triton ({e}): torch.compile cannot generate GPU kernels")
    with open(a.tsv, "w") as out:
        out.write(HEADER)
        if not a.parallel:
            for case in cases:
                for line in run_case(case, a, modes):
                    out.write(line)
                out.flush()
        else:
            import multiprocessing as mp

            ctx = mp.get_context("spawn")  # CUDA in the workers: no fork
            barrier, lock, queue = ctx.Barrier(len(cases)), ctx.Lock(), ctx.Queue()
            # daemon: a cut by the cap (SIGINT to this process) takes the workers with it
            procs = [ctx.Process(target=worker, args=(c, a, modes, barrier, lock, queue), daemon=True) for c in cases]
            for p in procs:
                p.start()
            got = {}
            try:
                import queue as queue_mod

                while len(got) < len(cases):
                    try:
                        case, lines = queue.get(timeout=1.0)
                    except queue_mod.Empty:
                        if not any(p.is_alive() for p in procs):
                            log(f"workers gone with {len(cases) - len(got)} case(s) unreported")
                            break
                        continue
                    got[case] = lines
                    log(f"{case}: done ({len(got)}/{len(cases)})")
            finally:  # the cap's SIGINT: write what came back, in case order
                for c in cases:
                    for line in got.get(c, []):
                        out.write(line)
                out.flush()
                for p in procs:
                    p.join(timeout=2)
    log("done")


if __name__ == "__main__":
    sys.exit(main())
