#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One rank of a data-parallel training loop over torch.distributed (gloo).

Every rank holds the same MLP (same seed), trains it on its own random
batches, and averages the gradients each step with one all_reduce of a
flat buffer that the parameters' .grad tensors are views of, as DDP's
gradient buckets are: the buffer's size is the model's, set by --floats.
Each timed step is a pair of step marks on the mplane timeline
(tools/include/mplane_mark.py) when a mark server listens.

After the timed loop the results are checked, so that a wrong answer is
never reported as bandwidth: every parameter must be bitwise the same on
every rank (their elementwise max and min over the ranks agree), and one
all_reduce of known integers must sum exactly.  One JSON object goes to
stdout; the exit status is 1 when a check failed, 2 for bad arguments.

    allreduce_train.py --rank 0 --world 2 --master 10.100.0.2:29500 \
        --ifname r0 --floats 1M --steps 20 --mark-socket -
"""
import argparse
import json
import math
import os
import sys
import time
from datetime import timedelta

# No __pycache__ in the source tree (read-only in the test VM anyway).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "include"))
import mplane_mark  # noqa: E402

PROG = "allreduce_train"


def size_arg(text):
    """A count of floats: 65536, 64K, 1M (powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    mult = units.get(text[-1:].upper(), 1)
    digits = text[:-1] if mult > 1 else text
    if not digits.isdigit() or int(digits) * mult < 16:
        raise argparse.ArgumentTypeError(f"bad size '{text}': want at least 16, e.g. 64K or 1M")
    return int(digits) * mult


def parse_args():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True, help="number of ranks")
    p.add_argument("--master", required=True, metavar="ADDR:PORT",
                   help="rank 0's address and the rendezvous port")
    p.add_argument("--ifname", help="the interface gloo binds to (GLOO_SOCKET_IFNAME)")
    p.add_argument("--floats", type=size_arg, default=1 << 20,
                   help="gradient floats per step, at most (default 1M)")
    p.add_argument("--depth", type=int, default=4, help="square layers of the MLP")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--steps", type=int, default=20, help="timed steps")
    p.add_argument("--warmup", type=int, default=3, help="steps neither timed nor marked")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    p.add_argument("--timeout", type=float, default=60,
                   help="seconds a collective may wait for the other ranks")
    p.add_argument("--mark-socket", metavar="PATH",
                   help="mark steps through 'mplanectl mark serve' at PATH ('-': the default)")
    p.add_argument("--fault", choices=["diverge", "exit"],
                   help="for the tests: the last rank nudges one parameter before the "
                   "checks (diverge), or exits with status 3 after the warm-up (exit)")
    a = p.parse_args()
    if not 0 <= a.rank < a.world:
        p.error(f"bad --rank {a.rank}: want 0 to {a.world - 1}")
    if a.steps < 1 or a.warmup < 0 or a.depth < 1 or a.batch < 1:
        p.error("want --steps, --depth and --batch of at least 1, --warmup of at least 0")
    addr, _, port = a.master.rpartition(":")
    if not addr or not port.isdigit():
        p.error(f"bad --master '{a.master}': want ADDR:PORT")
    return a


def mlp_width(floats, depth):
    """The widest square layer whose depth copies (weights and bias) fit."""
    return max(1, int((math.sqrt(1 + 4 * floats / depth) - 1) / 2))


def build_model(torch, width, depth):
    layers = []
    for i in range(depth):
        layers.append(torch.nn.Linear(width, width))
        if i < depth - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def bind_grads(torch, params):
    """One flat buffer, each parameter's .grad a view of it.

    backward() then accumulates into the buffer in place, and one
    all_reduce of it averages every gradient at once.
    """
    buf = torch.zeros(sum(p.numel() for p in params))
    off = 0
    for p in params:
        p.grad = buf[off:off + p.numel()].view_as(p)
        off += p.numel()
    return buf


def percentile(sorted_vals, pct):
    """Nearest rank, as the engine counts it: p99 of 20 is the slowest."""
    k = max(1, math.ceil(pct / 100 * len(sorted_vals)))
    return sorted_vals[k - 1]


def stats_us(ns_list):
    v = sorted(x / 1000 for x in ns_list)
    return {"mean_us": round(sum(v) / len(v), 1), "p50_us": round(percentile(v, 50), 1),
            "p99_us": round(percentile(v, 99), 1), "max_us": round(v[-1], 1)}


def open_marker(path):
    if path is None:
        return None
    try:
        return mplane_mark.connect(None if path == "-" else path)
    except OSError as e:
        print(f"{PROG}: no step marks: {path}: {e.strerror}", file=sys.stderr)
        return None


class Trainer:
    """The model, its optimizer and this rank's data."""

    def __init__(self, torch, dist, a):
        self.torch, self.dist, self.a = torch, dist, a
        torch.manual_seed(a.seed)  # the same model on every rank
        self.width = mlp_width(a.floats, a.depth)
        self.model = build_model(torch, self.width, a.depth)
        self.params = list(self.model.parameters())
        self.grads = bind_grads(torch, self.params)
        self.initial = torch.cat([p.detach().reshape(-1) for p in self.params])
        self.opt = torch.optim.SGD(self.params, lr=a.lr)
        # Each rank's own batches: the all_reduce is what keeps the
        # replicas equal.
        self.data = torch.Generator().manual_seed(a.seed * 1000 + a.rank + 1)
        self.losses = []

    def step(self):
        """One step: forward, backward, all_reduce; its all_reduce's ns."""
        torch = self.torch
        x = torch.randn(self.a.batch, self.width, generator=self.data)
        self.grads.zero_()
        loss = torch.nn.functional.mse_loss(self.model(x), torch.sin(x))
        loss.backward()
        t0 = time.monotonic_ns()
        self.dist.all_reduce(self.grads)
        t1 = time.monotonic_ns()
        self.grads.div_(self.a.world)
        self.opt.step()
        self.losses.append(loss.item())
        return t1 - t0

    def flat_params(self):
        return self.torch.cat([p.detach().reshape(-1) for p in self.params])


def check_replicas(dist, flat):
    """Parameters that differ between ranks (their max and min disagree)."""
    hi, lo = flat.clone(), flat.clone()
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    return int((hi != lo).sum())


def check_sum(torch, dist, rank, world, n):
    """Elements of an all_reduce of known small integers that are wrong."""
    pattern = torch.arange(n, dtype=torch.int64).remainder(7).add(1).float()
    buf = pattern * (rank + 1)
    dist.all_reduce(buf)
    return int((buf != pattern * (world * (world + 1) // 2)).sum())


def run(a, torch, dist):
    trainer = Trainer(torch, dist, a)
    n = trainer.grads.numel()
    marker = open_marker(a.mark_socket)
    for _ in range(a.warmup):
        trainer.step()
    last = a.rank == a.world - 1
    if a.fault == "exit" and last:
        os._exit(3)  # as a crash: no destructor runs
    dist.barrier()
    step_ns, ar_ns = [], []
    for s in range(a.steps):
        if marker:
            marker.mark(mplane_mark.STEP, s)
        t0 = time.monotonic_ns()
        ar_ns.append(trainer.step())
        step_ns.append(time.monotonic_ns() - t0)
        if marker:
            marker.mark(mplane_mark.STEP_END, s)
    flat = trainer.flat_params()
    if a.fault == "diverge" and last:
        flat[0] += 1e-3
    differ = check_replicas(dist, flat)
    wrong = check_sum(torch, dist, a.rank, a.world, n)
    nbytes = n * 4
    ar = stats_us(ar_ns)
    algbw = nbytes / (ar["mean_us"] * 1e3) if ar["mean_us"] else 0.0
    return {
        "rank": a.rank, "world": a.world, "pid": os.getpid(),
        "floats": n, "bytes": nbytes, "width": trainer.width, "depth": a.depth,
        "step_count": a.steps, "warmup_count": a.warmup,
        "step_times": stats_us(step_ns), "allreduce_times": ar,
        "algbw": round(algbw, 4),
        "busbw": round(algbw * 2 * (a.world - 1) / a.world, 4),
        "loss_first": trainer.losses[0], "loss_last": trainer.losses[-1],
        "param_change": float((flat - trainer.initial).norm()),
        "param_sum": float(flat.double().sum()),
        "params_differ": differ, "allreduce_wrong": wrong,
        "marks_sent": marker.sent if marker else 0,
        "marks_dropped": marker.dropped if marker else 0,
        "ok": differ == 0 and wrong == 0,
    }


def main():
    a = parse_args()
    if a.ifname:
        os.environ["GLOO_SOCKET_IFNAME"] = a.ifname
    t0 = time.monotonic()
    import torch
    import torch.distributed as dist
    t1 = time.monotonic()
    torch.set_num_threads(a.threads)
    try:
        dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank,
                                world_size=a.world, timeout=timedelta(seconds=a.timeout))
        t2 = time.monotonic()
        out = run(a, torch, dist)
        dist.destroy_process_group()
    except RuntimeError as e:
        # Gloo's errors are one long line; the first is what went wrong.
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"{PROG}: rank {a.rank}: {msg}", file=sys.stderr)
        return 1
    out["import_s"] = round(t1 - t0, 3)
    out["init_s"] = round(t2 - t1, 3)
    print(json.dumps(out))
    if not out["ok"]:
        print(f"{PROG}: rank {a.rank}: {out['params_differ']} parameters differ between ranks, "
              f"{out['allreduce_wrong']} elements of the check sum wrong", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
