"""Train the raster symbol detector on generated sheets and export it to ONNX.

    python training/train.py --data DIR --out models/raster [--steps N] [--seed S]

One process, two threads (torch.set_num_threads), seeds fixed. A checkpoint is written every
--ckpt-every steps into --work; running the same command again resumes from it and ends with
the same weights as an uninterrupted run. Every figure printed is also appended to
<out>/train-log.txt. At the end the model is exported (export.py) beside the log.
"""

import argparse
import math
import os
import random
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import export  # noqa: E402
import model  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="directory of make synth KIND=raster sheets")
    p.add_argument("--catalog", default="internal/catalog/symbols.json")
    p.add_argument("--out", default="internal/raster/model", help="where the ONNX model, its JSON and the log go")
    p.add_argument("--work", default="build/train", help="checkpoints (ignored by git)")
    p.add_argument("--seed", type=int, default=20251123)
    p.add_argument("--steps", type=int, default=5000, help="length of the learning-rate schedule")
    p.add_argument("--extra", type=int, default=0,
                   help="after --steps, a second cosine cycle of this many steps from half the learning rate "
                        "(a warm restart; identical to the plain run up to --steps, so it resumes one)")
    p.add_argument("--stop-at", type=int, default=0, help="stop (and export) at this step; 0: at the end of the schedule")
    p.add_argument("--cool-from", type=int, default=0,
                   help="from this step on, decay the learning rate linearly to 0 at --stop-at (a shorter run that "
                        "still ends annealed, identical to the full schedule up to that step); 0: plain cosine")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--crop", type=int, default=192, help="training crop side in pixels")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--ckpt-every", type=int, default=100)
    p.add_argument("--val-sheets", type=int, default=8, help="last sheets held out for the loss check")
    p.add_argument("--tile", type=int, default=1024, help="largest inference tile side, written to the model JSON")
    p.add_argument("--max-sheets", type=int, default=0, help="the first this many sheets of --data (0: all)")
    p.add_argument("--bf16", action="store_true", help=BF16_HELP)
    return p.parse_args()


class Log:
    def __init__(self, path, fresh):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.f = open(path, "w" if fresh else "a")

    def __call__(self, msg):
        print(msg, flush=True)
        self.f.write(msg + "\n")
        self.f.flush()


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def save_checkpoint(path, net, opt, rng, step):
    """Writes what a rerun needs to end with the same weights: network, optimiser, the
    sampler's and torch's random states, the step (atomically: a cut-off run leaves the last
    checkpoint whole)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sampler": rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(), "step": step}, path + ".tmp")
    os.replace(path + ".tmp", path)


def checkpoint_step(path):
    """The step save_checkpoint wrote into path."""
    return torch.load(path, weights_only=False)["step"]


def load_checkpoint(path, net, opt, rng):
    """Restores what save_checkpoint wrote and returns its step."""
    ck = torch.load(path, weights_only=False)
    net.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    rng.bit_generator.state = ck["sampler"]
    torch.set_rng_state(ck["torch_rng"])
    return ck["step"]


def lr_at(step, steps, base, cool_from=0, stop_at=0, extra=0, tune=0):
    if tune > 0 and step >= steps + extra:
        # classifier.py --tune: a third cosine cycle from a quarter of the rate.
        return 0.25 * base * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - steps - extra) / tune)))
    if 0 < cool_from < stop_at and step >= cool_from:
        return lr_at(cool_from, steps, base, extra=extra) * max(0.0, (stop_at - step) / (stop_at - cool_from))
    if extra > 0 and step >= steps:
        return 0.5 * base * 0.5 * (1 + np.cos(np.pi * min(1.0, (step - steps) / extra)))
    warm = min(100, steps // 10)
    if step < warm:
        return base * (step + 1) / warm
    t = (step - warm) / max(1, steps - warm)
    return base * 0.5 * (1 + np.cos(np.pi * t))


BF16_HELP = ("run the network in bfloat16 (autocast, channels last; weights and losses stay float32): "
             "twice as fast on a CPU with AVX-512 BF16, about 12 times slower on one without; other bits than "
             "a float32 run")


def forward(net, x, bf16=False, channels_last=False):
    """net's outputs on x as float32; with bf16 run in bfloat16 under autocast, channels last;
    with channels_last alone in float32, channels last (the network itself put in that layout
    by the caller)."""
    if not (bf16 or channels_last):
        return net(x)
    x = x.contiguous(memory_format=torch.channels_last)
    if not bf16:
        return net(x)
    with torch.autocast(x.device.type, dtype=torch.bfloat16):
        return tuple(o.float() for o in net(x))


def losses(net, batch, bf16=False):
    """Focal heat-map loss and box regression loss of one batch; with bf16 the network runs
    in bfloat16 under autocast, channels last (the losses in float32)."""
    x, heat, reg, mask = (torch.from_numpy(a) for a in batch)
    logit, out = forward(net, x, bf16)
    lh = model.focal_loss(logit, heat)
    lr = model.reg_loss(out, reg, mask)
    return lh, lr


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    seed_all(a.seed)
    classes = data.load_classes(a.catalog)
    ckpt_path = os.path.join(a.work, "checkpoint.pt")
    resume = os.path.exists(ckpt_path)
    log = Log(os.path.join(a.out, "train-log.txt"), fresh=not resume)
    t0 = time.time()
    sheets = data.load_sheets(a.data, classes, a.max_sheets)
    if len(sheets) <= a.val_sheets:
        sys.exit(f"train: {len(sheets)} sheets in {a.data}; need more than --val-sheets={a.val_sheets}")
    train, val = sheets[:-a.val_sheets], sheets[-a.val_sheets:]
    n_sym = sum(len(s.labels) for s in train)
    log(f"data {a.data}: {len(train)} training sheets ({n_sym} symbols), {len(val)} held out; loaded in {time.time() - t0:.1f} s")
    sampler = data.Sampler(train, len(classes), a.crop, a.seed)
    val_batches = data.Sampler(val, len(classes), a.crop, a.seed + 1).batch(4 * a.batch)

    net = model.Detector(len(classes))
    if a.bf16:
        net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    step = 0
    if resume:
        step = load_checkpoint(ckpt_path, net, opt, sampler.rng)
        log(f"resumed at step {step} from {ckpt_path}")
    params = sum(p.numel() for p in net.parameters())
    log(f"model: {params} parameters, {len(classes)} classes, crop {a.crop}, batch {a.batch}, steps {a.steps}+{a.extra}, seed {a.seed}, threads {a.threads}"
        + (", bfloat16" if a.bf16 else ""))

    t_run = time.time()
    net.train()
    run_h = run_r = 0.0
    total = a.steps + max(0, a.extra)
    end = a.stop_at if 0 < a.stop_at < total else total
    while step < end:
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a.steps, a.lr, a.cool_from, end, a.extra)
        lh, lr = losses(net, sampler.batch(a.batch), a.bf16)
        loss = lh + lr
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        step += 1
        run_h += lh.item()
        run_r += lr.item()
        if step % 25 == 0:
            log(f"step {step}/{total} heat {run_h / 25:.4f} reg {run_r / 25:.4f} lr {lr_at(step, a.steps, a.lr, a.cool_from, end, a.extra):.2e} {(time.time() - t_run) / 25:.2f} s/step")
            run_h = run_r = 0.0
            t_run = time.time()
        if step % a.ckpt_every == 0 or step == end:
            save_checkpoint(ckpt_path, net, opt, sampler.rng, step)
            net.eval()
            with torch.no_grad():
                vh, vr = losses(net, val_batches, a.bf16)
            net.train()
            log(f"checkpoint step {step}: held-out heat {vh.item():.4f} reg {vr.item():.4f}")

    net = net.to(memory_format=torch.contiguous_format).eval()
    path = export.export(net, classes, a.out, a.tile, log)
    log(f"exported {path}; training wall {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
