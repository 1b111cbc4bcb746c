"""Fine-tunes all of USE-lite's weights for query -> tool retrieval.

  nice -n 19 /usr/bin/python3 scripts/train/train.py --out .cache/train/runs/all [--exclude bfcl] [--steps 500]

Reads the tokenised registries of scripts/train/build-data.mjs (.cache/train/data/*.json) and
the base tensors of scripts/train/dump-base.mjs (.cache/train/base/), writes the tuned tensors
to OUT/weights.bin + weights.json (the same layout) and a log. `--exclude SET` leaves out the
dev split of one eval set (leave-one-dataset-out). Resumable: OUT/ckpt.pt is written every
--ckpt-every steps and picked up on restart; the whole batch schedule is drawn up front from
--seed, so a resumed run sees the same batches as an uninterrupted one.

Objective, per step, on one registry (registries drawn with probability ~ sqrt(pairs)):
- contrastive: a batch of cases against a pool of that registry's tools (the batch's
  positives, each case's hardest non-positive tools under the base model, then random ones),
  softmax at scale --scale; a case's other positives are masked out of each positive's term;
- anchoring (keeps general similarity from drifting): the pool's tool vectors stay close to the
  base model's (1 - cosine, weight --anchor) and keep their pairwise cosines (squared error,
  weight --relational).
"""
import argparse
import glob
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from use_lite import UseLite, pad, read_tensors, write_tensors  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EVAL_SETS = ["bfcl", "bfcl_multi_turn", "metatool"]


def parse_args():
    a = argparse.ArgumentParser()
    a.add_argument("--data", default=os.path.join(ROOT, ".cache", "train", "data"))
    a.add_argument("--base", default=os.path.join(ROOT, ".cache", "train", "base"))
    a.add_argument("--out", required=True)
    a.add_argument("--exclude", default="", help="comma-separated eval sets whose dev split is left out")
    a.add_argument("--steps", type=int, default=300)
    a.add_argument("--batch", type=int, default=48, help="cases per step")
    a.add_argument("--pool", type=int, default=80, help="tools per step (positives + negatives)")
    a.add_argument("--hard", type=int, default=2, help="mined hard negatives per case")
    a.add_argument("--lr", type=float, default=1e-4)
    a.add_argument("--warmup", type=int, default=30)
    a.add_argument("--scale", type=float, default=20.0)
    a.add_argument("--anchor", type=float, default=1.0)
    a.add_argument("--relational", type=float, default=1.0)
    a.add_argument("--tool-len", type=int, default=48, help="tokens per tool text in training (inference keeps 128)")
    a.add_argument("--query-len", type=int, default=64, help="tokens per query in training (inference keeps 128)")
    a.add_argument("--chunk", type=int, default=48, help="texts per forward chunk (sorted by length)")
    a.add_argument("--seed", type=int, default=31)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--ckpt-every", type=int, default=25)
    a.add_argument("--eval-every", type=int, default=0)
    return a.parse_args()


def log(out, line):
    stamp = time.strftime("%H:%M:%S")
    print(f"{stamp} {line}", flush=True)
    with open(os.path.join(out, "train.log"), "a") as f:
        f.write(f"{stamp} {line}\n")


def load_registries(folder, exclude):
    regs = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        if path.endswith("manifest.json"):
            continue
        with open(path, "rb") as f:
            raw = f.read()
        r = json.loads(raw)
        r["sha256"] = hashlib.sha256(raw).hexdigest()
        r["excluded"] = r["registry"].startswith("eval_") and r["registry"][5:] in exclude
        regs.append(r)
    return regs


def embed(model, rows, max_len, chunk, grad=False):
    """Vectors for token-id rows, run in length-sorted chunks; returned in input order."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    parts = [None] * len(rows)
    ctx = torch.enable_grad() if grad else torch.no_grad()
    with ctx:
        outs = []
        for s in range(0, len(order), chunk):
            idx = order[s:s + chunk]
            ids, mask = pad([rows[i] for i in idx], max_len)
            outs.append((idx, model(ids, mask)))
    flat_idx = [i for idx, _ in outs for i in idx]
    vecs = torch.cat([v for _, v in outs], 0)
    inv = torch.empty(len(rows), dtype=torch.long)
    inv[torch.tensor(flat_idx)] = torch.arange(len(rows))
    return vecs[inv]


def full_recall(q, t, cases, ks=(4, 8, 16)):
    """Share of cases whose expected tools are all in the top k (dense cosine)."""
    scores = q @ t.T
    ranks = torch.argsort(torch.argsort(-scores, dim=1), dim=1)
    out = {}
    for k in ks:
        hits = [all(ranks[i, j].item() < k for j in c["expected"]) for i, c in enumerate(cases)]
        out[k] = sum(hits) / max(1, len(hits))
    return out


def evaluate_dev(model, regs, chunk):
    """Dense fullRecall on each eval set's dev split (as tokenised: 128 tokens)."""
    res = {}
    for r in regs:
        if not r["registry"].startswith("eval_"):
            continue
        t = embed(model, [x["ids"] for x in r["tools"]], 128, chunk)
        q = embed(model, [c["ids"] for c in r["cases"]], 128, chunk)
        res[r["registry"][5:]] = full_recall(q, t, r["cases"])
    return res


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    # Deterministic kernels (the embedding table's gradient otherwise accumulates in thread order).
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    exclude = {s for s in args.exclude.split(",") if s}
    unknown = exclude - set(EVAL_SETS)
    if unknown:
        raise SystemExit(f"--exclude: unknown set(s) {sorted(unknown)}")
    regs = load_registries(args.data, exclude)
    train = [r for r in regs if not r["excluded"]]
    tensors, index = read_tensors(args.base)
    base = UseLite(tensors)
    base.eval()
    for p in base.parameters():
        p.requires_grad_(False)

    # Teacher vectors of every tool, and base query vectors for mining, computed once per data set.
    cache = os.path.join(os.path.dirname(args.data.rstrip("/")), "teacher")
    os.makedirs(cache, exist_ok=True)
    for r in regs:
        f = os.path.join(cache, f"{r['registry']}-{r['sha256'][:16]}-{index['sha256'][:16]}-{args.tool_len}-{args.query_len}.npz")
        if os.path.exists(f):
            z = np.load(f)
            r["teacher_t"], r["teacher_q"] = torch.tensor(z["t"]), torch.tensor(z["q"])
        else:
            t0 = time.time()
            r["teacher_t"] = embed(base, [x["ids"] for x in r["tools"]], args.tool_len, args.chunk)
            r["teacher_q"] = embed(base, [c["ids"] for c in r["cases"]], args.query_len, args.chunk)
            np.savez(f, t=r["teacher_t"].numpy(), q=r["teacher_q"].numpy())
            log(args.out, f"teacher {r['registry']}: {len(r['tools'])} tools, {len(r['cases'])} queries in {time.time() - t0:.0f} s")

    # Hard negatives: each case's top non-positive tools under the base model.
    for r in train:
        s = r["teacher_q"] @ r["teacher_t"].T
        top = torch.topk(s, min(s.shape[1], args.hard + 8), dim=1).indices.tolist()
        r["hard"] = [[j for j in row if j not in set(c["expected"])][: args.hard] for row, c in zip(top, r["cases"])]

    # The schedule: registry and case/tool indices for every step, from the seed alone.
    rng = np.random.default_rng(args.seed)
    pairs = np.array([sum(len(c["expected"]) for c in r["cases"]) for r in train], dtype=np.float64)
    prob = np.sqrt(pairs) / np.sqrt(pairs).sum()
    orders = [list(rng.permutation(len(r["cases"]))) for r in train]
    cursor = [0] * len(train)
    schedule = []
    for _ in range(args.steps):
        ri = int(rng.choice(len(train), p=prob))
        r = train[ri]
        cases = []
        while len(cases) < min(args.batch, len(r["cases"])):
            if cursor[ri] >= len(orders[ri]):
                orders[ri] = list(rng.permutation(len(r["cases"])))
                cursor[ri] = 0
            cases.append(int(orders[ri][cursor[ri]]))
            cursor[ri] += 1
        pool = []
        seen = set()
        for ci in cases:
            for j in r["cases"][ci]["expected"]:
                if j not in seen:
                    seen.add(j)
                    pool.append(j)
        for ci in cases:
            for j in r["hard"][ci]:
                if j not in seen and len(pool) < args.pool:
                    seen.add(j)
                    pool.append(j)
        rest = [j for j in rng.permutation(len(r["tools"])).tolist() if j not in seen]
        pool += rest[: max(0, args.pool - len(pool))]
        schedule.append((ri, cases, pool))

    model = UseLite(tensors)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0, betas=(0.9, 0.999), eps=1e-8)
    lr_at = lambda step: args.lr * min(1.0, (step + 1) / args.warmup) * max(0.0, 1.0 - step / args.steps) if args.warmup else args.lr
    start = 0
    ckpt = os.path.join(args.out, "ckpt.pt")
    config = {k: v for k, v in vars(args).items() if k not in ("out", "threads", "ckpt_every", "eval_every", "data", "base")}
    config["data"] = {r["registry"]: r["sha256"] for r in train}
    config["base"] = index["sha256"]
    if os.path.exists(ckpt):
        state = torch.load(ckpt)
        if state["config"] != config:
            raise SystemExit(f"{ckpt} was written with other settings or data; remove it or use another --out")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["step"]
        log(args.out, f"resumed at step {start}")
    else:
        with open(os.path.join(args.out, "config.json"), "w") as f:
            json.dump(config, f, indent=1)
        log(args.out, f"training on {', '.join(r['registry'] for r in train)}; excluded {sorted(exclude) or 'nothing'}")

    t_last = time.time()
    window = []
    for step in range(start, args.steps):
        ri, cases, pool = schedule[step]
        r = train[ri]
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        q = embed(model, [r["cases"][c]["ids"] for c in cases], args.query_len, args.chunk, grad=True)
        t = embed(model, [r["tools"][j]["ids"] for j in pool], args.tool_len, args.chunk, grad=True)
        where = {j: k for k, j in enumerate(pool)}
        logits = args.scale * (q @ t.T)
        rows, cols, masks = [], [], []
        for a, c in enumerate(cases):
            pos = [where[j] for j in r["cases"][c]["expected"]]
            for p in pos:
                m = torch.zeros(len(pool), dtype=torch.bool)
                m[[x for x in pos if x != p]] = True
                rows.append(a)
                cols.append(p)
                masks.append(m)
        lg = logits[rows].masked_fill(torch.stack(masks), float("-inf"))
        contrastive = torch.nn.functional.cross_entropy(lg, torch.tensor(cols))
        teacher = r["teacher_t"][pool]
        anchor = (1.0 - (t * teacher).sum(1)).mean()
        relational = ((t @ t.T - teacher @ teacher.T) ** 2).mean()
        loss = contrastive + args.anchor * anchor + args.relational * relational
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        window.append((contrastive.item(), anchor.item(), relational.item()))
        done = step + 1
        if done % args.ckpt_every == 0 or done == args.steps:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": done, "config": config}, ckpt + ".tmp")
            os.replace(ckpt + ".tmp", ckpt)
            c, an, re = (sum(x[i] for x in window) / len(window) for i in range(3))
            log(args.out, f"step {done}/{args.steps} contrastive {c:.3f} anchor {an:.4f} relational {re:.5f} lr {lr_at(step):.2e} {(time.time() - t_last) / len(window):.2f} s/step")
            window = []
            t_last = time.time()
        if args.eval_every and done % args.eval_every == 0 and done != args.steps:
            model.eval()
            log(args.out, f"dev step {done}: {json.dumps(evaluate_dev(model, regs, args.chunk))}")

    sha = write_tensors(model.named_tensors(), index, args.out)
    log(args.out, f"wrote {args.out}/weights.bin (sha256 {sha})")
    res = evaluate_dev(model, regs, args.chunk)
    base_res = evaluate_dev(base, regs, args.chunk)
    with open(os.path.join(args.out, "dev.json"), "w") as f:
        json.dump({"tuned": res, "base": base_res, "excluded": sorted(exclude)}, f, indent=1)
    for s in res:
        tag = " (held out)" if s in exclude else ""
        log(args.out, f"dev {s}{tag}: dense fullRecall@4/8/16 base {[round(base_res[s][k], 3) for k in (4, 8, 16)]} tuned {[round(res[s][k], 3) for k in (4, 8, 16)]}")


if __name__ == "__main__":
    main()
