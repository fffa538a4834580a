# The TorchScript comparison of the profiler GPU job: exports a small GPT-like model with torch.jit.trace
# and measures torch.profiler's kernel total on the same traced module, inputs, warm-up and iterations.
#   gpt_like.py export FILE.pt                       (batch 8, seq 512, fp16, 4 layers of width 768)
#   gpt_like.py torch-profile FILE.pt WARMUP ITERS TRACE.json [KERNELS.tsv]   (kernel names with counts)
import collections
import json
import sys

import torch

B, S, D, H, L, V = 8, 512, 768, 12, 4, 50257


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(D)
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.proj = torch.nn.Linear(D, D)
        self.ln_2 = torch.nn.LayerNorm(D)
        self.fc = torch.nn.Linear(D, 4 * D)
        self.out = torch.nn.Linear(4 * D, D)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(D, dim=-1)
        q, k, v = (t.view(b, s, H, d // H).transpose(1, 2) for t in (q, k, v))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class GptLike(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = torch.nn.Embedding(V, D)
        self.wpe = torch.nn.Embedding(1024, D)
        self.blocks = torch.nn.ModuleList([Block() for _ in range(L)])
        self.ln_f = torch.nn.LayerNorm(D)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        return self.ln_f(x) @ self.wte.weight.t()


def export(path):
    torch.manual_seed(0)
    m = GptLike().cuda().half().eval()
    ids = torch.randint(0, V, (B, S), device="cuda")
    with torch.no_grad():
        traced = torch.jit.trace(m, ids)
    traced.save(path)
    print("exported", path, "with input %dx%d:int64:0-%d" % (B, S, V))


def torch_profile(path, warmup, iters, trace, names_out=None):
    # The same schedule as autokernel-profiler: warm-up, as many unprofiled iterations as measured ones,
    # one more (the profiler's discarded first profiled iteration), then the measured iterations.
    m = torch.jit.load(path, map_location="cuda")
    ids = torch.randint(0, V, (B, S), device="cuda")
    with torch.no_grad():
        for _ in range(warmup + iters + 1):
            m(ids)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA, torch.profiler.ProfilerActivity.CPU]) as prof:
            start.record()
            for _ in range(iters):
                m(ids)
            end.record()
            torch.cuda.synchronize()
    prof.export_chrome_trace(trace)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    total_us = sum(e["dur"] for e in kernels)
    if names_out:
        counts = collections.Counter(e["name"] for e in kernels)
        dur = collections.Counter()
        for e in kernels:
            dur[e["name"]] += e["dur"]
        with open(names_out, "w") as f:
            f.write("count\ttotal_us\tkernel_name\n")
            for name, c in counts.most_common():
                f.write("%d\t%.1f\t%s\n" % (c, dur[name], name))
    print("torch.profiler: %d kernels/iteration, kernel total %.3f ms/iteration, CUDA events %.3f ms/iteration" % (
        len(kernels) // iters, total_us / 1e3 / iters, start.elapsed_time(end) / iters))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        torch_profile(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6] if len(sys.argv) > 6 else None)
