# What TensorFlow does first in a TFJob, without TensorFlow (not in Debian):
# read TF_CONFIG, listen on this task's own address, and reach every other
# task at the address TF_CONFIG names for it. Each task serves its name to
# whoever connects; a task is done when every other task answered with the
# name TF_CONFIG gave it, and every other task has reached it (WAIT_SECONDS
# at most); it exits 0 when every check held.
import json
import os
import socket
import sys
import threading
import time

config = json.loads(os.environ["TF_CONFIG"])
me = config["task"]["type"], int(config["task"]["index"])
cluster = config["cluster"]
print(f"TF_CONFIG: task {me[0]}-{me[1]} of {json.dumps(cluster, sort_keys=True)}", flush=True)
port = int(cluster[me[0]][me[1]].rsplit(":", 1)[1])

server = socket.create_server(("", port))
server.settimeout(1)


callers = set()


def serve():
    while True:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        with conn:
            conn.sendall(f"{me[0]}-{me[1]}\n".encode())
            caller = conn.makefile().readline().strip()
            if caller:
                callers.add(caller)


threading.Thread(target=serve, daemon=True).start()

ok = True
for role, addresses in sorted(cluster.items()):
    for index, address in enumerate(addresses):
        if (role, index) == me:
            continue
        host, p = address.rsplit(":", 1)
        deadline = time.time() + 180
        while True:
            try:
                with socket.create_connection((host, int(p)), timeout=5) as s:
                    answer = s.makefile().readline().strip()
                    s.sendall(f"{me[0]}-{me[1]}\n".encode())
                break
            except OSError as e:
                if time.time() > deadline:
                    answer = f"unreachable ({e})"
                    break
                time.sleep(1)
        good = answer == f"{role}-{index}"
        ok &= good
        print(f"{address} answered {answer}: {'ok' if good else 'WRONG'}", flush=True)

print("every task reached" if ok else "some task NOT reached", flush=True)
# Serve until every other task has been here.
others = sum(len(a) for a in cluster.values()) - 1
deadline = time.time() + float(os.environ.get("WAIT_SECONDS", "180"))
while len(callers) < others and time.time() < deadline:
    time.sleep(0.2)
print(f"reached by {len(callers)} of {others} tasks", flush=True)
sys.exit(0 if ok and len(callers) == others else 1)
