# A small, real DistributedDataParallel training on CPU (gloo), run by every
# replica of a job: the ranks rendezvous through the variables the operator
# (or torchrun) sets (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), an
# all_reduce checks that they talk, a linear model learns y = x.w + b, and the
# ranks check that their parameters are equal. Rank 0 saves the model in
# /tmp/out. With HOLD_SECONDS, each replica then stays up that long, or until
# /tmp/release exists, so that "easyai download JOB /tmp/out" and "easyai
# exec" can reach it. It exits 0 when every check held.
#
#   easyai submit pytorch --workers 2 --image IMAGE_WITH_TORCH -- python3 -c "$(cat train.py)"
import hashlib
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
print(f"rank {rank} of {world}, master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
dist.init_process_group("gloo")
ok = True

total = torch.tensor([float(rank + 1)])
dist.all_reduce(total)
want = world * (world + 1) / 2
print(f"all_reduce sum {total.item():.0f} (want {want:.0f})", flush=True)
ok &= total.item() == want

torch.manual_seed(0)
model = DistributedDataParallel(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.Generator().manual_seed(1000 + rank)
w = torch.tensor([[1.0, -2.0, 3.0, 0.5]])
losses = []
for step in range(30):
    x = torch.randn(64, 4, generator=data)
    loss = torch.nn.functional.mse_loss(model(x), x @ w.T + 0.7)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.2)
falls = losses[-1] < losses[0] / 10
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}: {'falls' if falls else 'does not fall'}", flush=True)
ok &= falls

params = torch.cat([p.detach().flatten() for p in model.parameters()])
digest = hashlib.sha256(params.numpy().tobytes()).hexdigest()[:16]
digests = [None] * world
dist.all_gather_object(digests, digest)
same = len(set(digests)) == 1
print(f"parameters {digest}: {'the same on every rank' if same else 'differ: ' + ' '.join(digests)}", flush=True)
ok &= same

if rank == 0:
    os.makedirs("/tmp/out", exist_ok=True)
    torch.save(model.module.state_dict(), "/tmp/out/model.pt")
    with open("/tmp/out/digest", "w") as f:
        f.write(digest + "\n")
    print("saved /tmp/out/model.pt", flush=True)

print("training done" if ok else "training FAILED", flush=True)
deadline = time.time() + float(os.environ.get("HOLD_SECONDS", "0"))
while not os.path.exists("/tmp/release") and time.time() < deadline:
    time.sleep(0.5)
dist.destroy_process_group()
# Leave without the interpreter's teardown: under torchrun, Debian 12's torch
# (1.13) now and then aborts there ("terminate called without an active
# exception", SIGABRT) after everything above has succeeded, and the job
# would fail for it. Nothing is left to flush but stdout and stderr.
sys.stdout.flush()
sys.stderr.flush()
os._exit(0 if ok else 1)
