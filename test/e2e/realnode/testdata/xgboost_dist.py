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
# The worker may join only once the tracker listens: rabit tries to reach it
# a few times (about 20 s) and then fails, and a process whose join failed
# cannot join again (its engine stays, with no rank). The master imports
# xgboost first, which takes long on a busy node, so it says when the tracker
# listens on a port of its own, the next one, and the worker waits for that.
if rank == 0:
    tracker = RabitTracker(host_ip="0.0.0.0", n_workers=world, port=port)
    tracker.start(world)
    threading.Thread(target=tracker.join, daemon=True).start()
    ready = socket.create_server(("0.0.0.0", port + 1))

    def answer():
        while True:
            ready.accept()[0].close()

    threading.Thread(target=answer, daemon=True).start()
else:
    waited = 0
    while True:
        try:
            socket.create_connection((addr, port + 1), timeout=5).close()
            break
        except OSError as err:
            if waited >= 600:
                raise SystemExit(f"the tracker at {addr}:{port} did not listen within {waited} s: {err}")
            if waited % 30 == 0:
                print(f"the tracker does not listen yet ({err}): waiting", flush=True)
            time.sleep(2)
            waited += 2

env = {"DMLC_TRACKER_URI": addr, "DMLC_TRACKER_PORT": port, "DMLC_TASK_ID": str(rank), "DMLC_NUM_WORKER": world}
ok = True
collective.init(**env)
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
