# The Python training script the profiler GPU job profiles through the injection route:
# a small GPT-like model (gpt_like.py's blocks, 2 layers) trained for 8 steps in bf16 autocast with AdamW,
# each step inside the NVTX range "train_step", forward and backward in "forward" / "backward".
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_like  # noqa: E402

gpt_like.L = 2
torch.manual_seed(0)
model = gpt_like.GptLike().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, gpt_like.V, (4, 256), device="cuda")
for step in range(8):
    torch.cuda.nvtx.range_push("train_step")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        torch.cuda.nvtx.range_push("forward")
        logits = model(ids)
        loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.shape[-1]), ids.view(-1))
        torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.cuda.nvtx.range_pop()
    opt.step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("train_small: final loss %.4f" % float(loss))
