# Distributed XGBoost as an XGBoostJob runs it: the master (RANK 0) starts
# the rabit tracker on MASTER_PORT, every replica joins it at MASTER_ADDR and
# trains on its own part of the data; the histograms are summed across the
# ranks, so the trees, and the model, are the same on every rank.
import hashlib
import os
import socket
import threading
import time

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
print(f"rank {rank} of {world}, tracker at {addr}:{port}", flush=True)
if rank == 0:
    tracker = RabitTracker(host_ip="0.0.0.0", n_workers=world, port=port)
    tracker.start(world)
    threading.Thread(target=tracker.join, daemon=True).start()
else:
    # The operator starts no init container for XGBoost (it does for
    # PyTorch): wait, as that one does, until the master's name resolves.
    # Its tracker may listen only later (the master imports xgboost first,
    # which takes long on a busy node): joining is tried again below.
    for _ in range(120):
        try:
            socket.getaddrinfo(addr, port)
            break
        except OSError:
            time.sleep(1)
    time.sleep(5)

env = {"DMLC_TRACKER_URI": addr, "DMLC_TRACKER_PORT": port, "DMLC_TASK_ID": str(rank), "DMLC_NUM_WORKER": world}
ok = True
for attempt in range(24):
    try:
        collective.init(**env)
        break
    except xgb.core.XGBoostError:
        if attempt == 23:
            raise
        print("the tracker does not answer yet: joining again in 5 s", flush=True)
        time.sleep(5)
try:
    print(f"joined as {collective.get_rank()} of {collective.get_world_size()}", flush=True)
    rng = np.random.default_rng(rank)
    x = rng.normal(size=(2000, 4))
    y = (x @ np.array([1.0, -2.0, 3.0, 0.5]) > 0).astype(int)
    data = xgb.DMatrix(x, label=y)
    history = {}
    booster = xgb.train({"objective": "binary:logistic", "eval_metric": "logloss", "tree_method": "hist"},
                        data, num_boost_round=10, evals=[(data, "train")], evals_result=history, verbose_eval=False)
    losses = history["train"]["logloss"]
    falls = losses[-1] < losses[0] / 2
    print(f"logloss {losses[0]:.4f} -> {losses[-1]:.4f}: {'falls' if falls else 'does not fall'}", flush=True)
    ok &= falls
    digest = int(hashlib.sha256(booster.save_raw("json")).hexdigest()[:12], 16)
    low = collective.allreduce(np.array([digest], dtype=np.float64), collective.Op.MIN)[0]
    high = collective.allreduce(np.array([digest], dtype=np.float64), collective.Op.MAX)[0]
    same = low == high
    print(f"model {digest:x}: {'the same on every rank' if same else 'differs'}", flush=True)
    ok &= same
    print("training done" if ok else "training FAILED", flush=True)
    # The master's end ends the job (and logs -f): every rank has written its
    # last line before any rank goes on to end.
    collective.allreduce(np.array([1.0]), collective.Op.SUM)
finally:
    collective.finalize()
raise SystemExit(0 if ok else 1)
