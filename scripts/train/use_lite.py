"""USE-lite's forward pass in PyTorch, exactly the graph src/cli/model/use-lite-graph.ts writes.

x = 2*E[id] + PE; two pre-LayerNorm transformer layers (4 heads, key-padding mask, layer 0's
residual through a 256->512 dense); plain masked mean; tanh head; L2 normalisation. The weights
are the trainable tensors of src/cli/model/use-lite-tensors.ts (weights.bin + weights.json,
written by scripts/train/dump-base.mjs); the constants (timing signal, q scales) are the base
model's and are rebuilt here from the same formulas.
"""
import json
import math
import os

import numpy as np
import torch
from torch import nn

MAX_TOKENS = 128
LN_EPS = 1e-6


def read_tensors(folder):
    """name -> float32 numpy array, from weights.bin + weights.json."""
    with open(os.path.join(folder, "weights.json")) as f:
        index = json.load(f)
    flat = np.fromfile(os.path.join(folder, "weights.bin"), dtype="<f4")
    if flat.size != index["values"]:
        raise ValueError(f"{folder}/weights.bin holds {flat.size} values, weights.json says {index['values']}")
    out = {}
    for t in index["tensors"]:
        n = int(np.prod(t["shape"]))
        out[t["name"]] = flat[t["offset"]:t["offset"] + n].reshape(t["shape"]).copy()
    return out, index


def write_tensors(params, index, folder):
    """Writes a name -> tensor dict in the order and shapes of `index` (the base's weights.json)."""
    import hashlib
    os.makedirs(folder, exist_ok=True)
    parts = []
    for t in index["tensors"]:
        a = params[t["name"]].detach().cpu().numpy().astype("<f4").reshape(-1)
        if a.size != int(np.prod(t["shape"])):
            raise ValueError(f"{t['name']}: {a.size} values")
        parts.append(a)
    flat = np.concatenate(parts)
    data = flat.tobytes()
    with open(os.path.join(folder, "weights.bin.tmp"), "wb") as f:
        f.write(data)
    os.replace(os.path.join(folder, "weights.bin.tmp"), os.path.join(folder, "weights.bin"))
    meta = dict(index)
    meta["sha256"] = hashlib.sha256(data).hexdigest()
    with open(os.path.join(folder, "weights.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta["sha256"]


def timing_signal(length=MAX_TOKENS, channels=256):
    # omega_k = exp(-k*ln(1e4)/127), as the TF graph's constant (matches to 3e-8).
    half = channels // 2
    k = np.arange(half, dtype=np.float64)
    omega = np.exp(-k * math.log(1e4) / (half - 1)).astype(np.float32)
    j = np.arange(length, dtype=np.float32)[:, None]
    t = (j * omega[None, :]).astype(np.float32)
    return torch.tensor(np.concatenate([np.sin(t.astype(np.float64)), np.cos(t.astype(np.float64))], axis=1).astype(np.float32))


class UseLite(nn.Module):
    def __init__(self, tensors):
        super().__init__()
        self.names = list(tensors.keys())
        self.p = nn.ParameterDict({k.replace(".", "__"): nn.Parameter(torch.tensor(v)) for k, v in tensors.items()})
        self.register_buffer("pe", timing_signal())
        # Layer widths and head sizes (q scale = 1/sqrt(head dim): 0.125, 0.0883883).
        self.layers = [(256, 4, 64), (512, 4, 128)]

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def named_tensors(self):
        return {n: self.w(n) for n in self.names}

    def forward(self, ids, mask):
        """ids, mask: int64 [B, L] right-padded. Returns float32 [B, 512], L2-normalised."""
        ids = ids[:, :MAX_TOKENS]
        mask = mask[:, :MAX_TOKENS]
        maskf = mask.to(torch.float32)
        L = ids.shape[1]
        x = 2.0 * self.w("embeddings")[ids] + self.pe[:L][None]
        bias = (maskf - 1.0)[:, None, None, :] * 1e9
        B = ids.shape[0]
        for i, (d, heads, dh) in enumerate(self.layers):
            p = f"layer_{i}."
            ln1 = nn.functional.layer_norm(x, (d,), self.w(p + "ln1.gamma"), self.w(p + "ln1.beta"), LN_EPS)
            qkv = ln1 @ self.w(p + "qkv.weight") + self.w(p + "qkv.bias")
            q, k, v = qkv.split(d, dim=-1)
            q = q * (1.0 / math.sqrt(dh))
            q = q.view(B, L, heads, dh).transpose(1, 2)
            k = k.view(B, L, heads, dh).transpose(1, 2)
            v = v.view(B, L, heads, dh).transpose(1, 2)
            logits = q @ k.transpose(-1, -2) + bias
            ctx = torch.softmax(logits, dim=-1) @ v
            merged = ctx.transpose(1, 2).reshape(B, L, d)
            attn = merged @ self.w(p + "attn_out.weight") + self.w(p + "attn_out.bias")
            residual = x @ self.w(p + "residual.weight") + self.w(p + "residual.bias") if i == 0 else x
            h = attn + residual
            ln2 = nn.functional.layer_norm(h, (512,), self.w(p + "ln2.gamma"), self.w(p + "ln2.beta"), LN_EPS)
            f = torch.relu(ln2 @ self.w(p + "ffn1.weight") + self.w(p + "ffn1.bias")) @ self.w(p + "ffn2.weight") + self.w(p + "ffn2.bias")
            x = h + f
        summed = (x * maskf[:, :, None]).sum(1)
        count = maskf.sum(1, keepdim=True).clamp(min=1.0)
        u = torch.tanh((summed / count) @ self.w("head.weight") + self.w("head.bias"))
        return u / torch.sqrt((u * u).sum(1, keepdim=True).clamp(min=1e-12))


def pad(rows, max_len=MAX_TOKENS):
    """Right-padded ids and mask (pad id 0, width >= 1) for lists of token ids."""
    rows = [r[:max_len] for r in rows]
    width = max(1, max(len(r) for r in rows))
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
            mask[i, :len(r)] = 1
    return ids, mask


if __name__ == "__main__":
    import sys
    torch.set_num_threads(2)
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", ".cache", "train", "base")
    t, _ = read_tensors(folder)
    m = UseLite(t)
    with torch.no_grad():
        y = m(*pad([[34, 2280, 3744, 1394, 152, 2009, 7, 132, 9, 6266, 959, 6], [728, 446, 31, 19, 54]]))
    print(y[:, :4].numpy())
    print("golden: [-0.013534,-0.042564,0.036843,-0.005918] / [0.038685,0.050444,-0.045524,0.056079]")
