"""What the timing protocol's L2 flush costs a read-only kernel, measured with PyTorch kernels only.

The evaluator flushes L2 before every timed run with a memset of 2.5x L2 (core/engine/evaluator/timing.cpp),
so every run starts with L2 full of dirty lines. A kernel that only reads (cross_entropy, a reduction) must
write those lines back to HBM while it reads; a copy writes as much as it reads, and its own last writes stay
in L2 when its timing ends. This script times, side by side and after each kind of flush (memset: dirty lines,
as the harness does; read: clean lines), a same-size copy (N/2 bytes read + N/2 written, as the copy ceiling)
and two read-only kernels over N bytes (torch.amax over the rows; x.sum), for N = the fp16 4096x50257 and
8192x50257 logits; and what a small memset (rows x 8 B: the size of cross_entropy's zeroed workspace, which
the evaluator zeroes inside the timed launch) adds in front of the sum. Prints medians, IQR and GB/s, and each read-only kernel's % of the same-size copy.
"""
import argparse, statistics, sys
import torch


def quantiles(xs):
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4)
    return statistics.median(xs), q[2] - q[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--tsv", default=None)
    a = ap.parse_args()
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = props.L2_cache_size
    flush_bytes = max(32 << 20, int(l2 * 2.5)) // (1 << 20) * (1 << 20)
    flush_buf = torch.empty(flush_bytes, dtype=torch.uint8, device=dev)
    print(f"# {props.name}: L2 {l2 / 2**20:.0f} MiB, flush buffer {flush_bytes >> 20} MiB", flush=True)
    value = [0]

    def flush_dirty():
        value[0] = (value[0] + 1) % 251
        flush_buf.fill_(value[0])

    clean_buf = torch.ones(flush_bytes // 8, dtype=torch.int64, device=dev)  # written once, long before

    def flush_clean():
        clean_buf.sum()  # 2.5x L2 of reads: the dirty lines are written back now, L2 ends full of clean lines

    rows_out = []
    for rows in (4096, 8192):
        x = torch.randn(rows, 50257, device=dev, dtype=torch.float16)
        n = x.numel() * x.element_size()
        src = torch.empty(n // 2, dtype=torch.uint8, device=dev).fill_(7)
        dst = torch.empty_like(src)
        ws = torch.empty(rows * 8, dtype=torch.uint8, device=dev)  # cross_entropy FUSED_MEAN=2's workspace
        ops = {
            "copy (N/2 read + N/2 written)": lambda: dst.copy_(src),
            "amax over rows (N read)": lambda: torch.amax(x, dim=1),
            "sum (N read)": lambda: x.sum(dtype=torch.float32),
            "memset of rows x 8 B (the workspace zeroing)": lambda: ws.zero_(),
            "that memset, then sum": lambda: (ws.zero_(), x.sum(dtype=torch.float32)),
            "nothing (the two events alone)": lambda: None,
        }
        for flush_name, flush in (("memset (dirty L2, as the harness)", flush_dirty), ("read (clean L2)", flush_clean)):
            times = {k: [] for k in ops}
            for op in ops.values():
                op()
            torch.cuda.synchronize()
            for _ in range(a.reps):
                for k, op in ops.items():  # interleaved: every op sees the same GPU state
                    flush()
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record(); op(); e.record()
                    e.synchronize()
                    times[k].append(s.elapsed_time(e) * 1000.0)
            copy_med = quantiles(times["copy (N/2 read + N/2 written)"])[0]
            for k, ts in times.items():
                med, iqr = quantiles(ts)
                line = (f"{rows}x50257 fp16 ({n / 1e6:.1f} MB)\t{flush_name}\t{k}\t{med:.1f}\t{iqr:.1f}\t"
                        f"{n / (med * 1e-6) / 1e9:.0f}\t{100.0 * copy_med / med:.1f}")
                print(line, flush=True)
                rows_out.append(line)
        del x, src, dst, ws
        torch.cuda.empty_cache()
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("bytes N\tL2 flush before each run\top\tmedian_us\tiqr_us\tGB/s (N / time)\t% of the same-size copy\n")
            f.write("\n".join(rows_out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
