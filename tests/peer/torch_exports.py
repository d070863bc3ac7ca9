#!/usr/bin/python3
"""torch_exports.py — small models as torch.onnx.export writes them, for
tests/peer: the committed files under tests/data/torch/ let peer.py compare
rules/onnxruntime with onnxruntime on graphs shaped the way PyTorch users'
graphs are (exporter-made node names, decomposed LayerNorm/GELU at the
older opsets, Shape/Gather/Concat chains from dynamic axes), without torch
installed where the tests run.

Each model keeps its architecture's operator structure (torchvision's own
classes where they can be configured small; ResNet's widths cannot, so it
is built from torchvision's BasicBlock) with widths, depths and image sizes
shrunk so a file stays a few hundred KB. Weights are random (fixed seeds),
no two equal: fusions do not depend on their values. Every model is exported in eval mode
but with autograd on: under torch.no_grad() torch 1.13 routes
nn.MultiheadAttention and nn.TransformerEncoderLayer to a fused fast path
that has no ONNX symbolic. Axes are dynamic: batch, and sequence for the
sequence models. Output is byte-for-byte reproducible for one torch version.

usage: torch_exports.py [OUTDIR]     default tests/data/torch; writes
       OUTDIR/torch_NAME_opsetN.onnx for every model and opset below
"""
import io
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
from torchvision.models import convnext as tv_convnext
from torchvision.models import efficientnet as tv_efficientnet
from torchvision.models import mobilenetv3 as tv_mobilenetv3
from torchvision.models import resnet as tv_resnet
from torchvision.models import swin_transformer as tv_swin
from torchvision.models import vision_transformer as tv_vit

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data", "torch")
ALL_OPSETS = (13, 14, 17)


# ---- CNN classifiers ---------------------------------------------------------

class TinyResNet18(nn.Module):
    """resnet18's layout (7x7 stem, max pool, four stages of two BasicBlocks,
    1x1 downsample on stride, global pool, fc) at 6..48 channels instead of
    64..512: torchvision's ResNet cannot be made narrower."""

    def __init__(self, width=6, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, cin = [], width
        for i in range(4):
            cout, stride = width << i, 1 if i == 0 else 2
            down = None
            if stride != 1 or cin != cout:
                down = nn.Sequential(tv_resnet.conv1x1(cin, cout, stride), nn.BatchNorm2d(cout))
            stages.append(nn.Sequential(tv_resnet.BasicBlock(cin, cout, stride, down),
                                        tv_resnet.BasicBlock(cout, cout)))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet18():
    return TinyResNet18(), image(64)


def mobilenet_v3_small():
    setting, last = tv_mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    return tv_mobilenetv3.MobileNetV3(setting, last, num_classes=10), image(64)


def efficientnet_b0():
    setting, last = tv_efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.125, depth_mult=1.0)
    return tv_efficientnet.EfficientNet(setting, 0.2, last_channel=last, num_classes=10), image(64)


def convnext():
    # convnext_tiny's blocks over three stages of two instead of (3, 3, 9, 3),
    # 8..32 channels instead of 96..768
    blocks = [tv_convnext.CNBlockConfig(8, 16, 2), tv_convnext.CNBlockConfig(16, 32, 2),
              tv_convnext.CNBlockConfig(32, None, 2)]
    return tv_convnext.ConvNeXt(blocks, num_classes=10), image(64)


# ---- vision transformers -----------------------------------------------------

def vit():
    return tv_vit.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                    hidden_dim=32, mlp_dim=64, num_classes=10), image(32)


def swin_t():
    # swin_t's layout (patch 4, MLP ratio 4, shifted windows every second
    # block, patch merging between stages) over two stages instead of four,
    # 16 channels instead of 96, window 4 instead of 7 and a 32x32 image: the
    # first stage sees 8x8 patches, two windows a side, so its shifted block
    # rolls and masks; the second sees 4x4, one window, which is not shifted
    return tv_swin.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                                   window_size=[4, 4], num_classes=10), image(32)


def image(size):
    return {"inputs": (torch.randn(1, 3, size, size),), "names": ["image"],
            "dynamic": {"image": {0: "batch"}, "output": {0: "batch"}}}


# ---- nn.Transformer stacks ---------------------------------------------------

def causal_mask(n, device=None):
    """Additive mask, -inf above the diagonal, made without Trilu (opset 14)
    so the same code exports at opset 13."""
    i = torch.arange(n, device=device)
    return torch.zeros(n, n).masked_fill(i[None, :] > i[:, None], float("-inf"))


class Encoder(nn.Module):
    def __init__(self, norm_first, activation, batch_first):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation=activation,
                                           batch_first=batch_first, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(32) if norm_first else None,
                                             enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, 2)

    def forward(self, tgt, memory):
        return self.decoder(tgt, memory, tgt_mask=causal_mask(tgt.shape[1]))


def sequence(names, shapes, seq_axis):
    """Random inputs; batch and each input's sequence length dynamic, the
    output's sequence that of the first input."""
    def axes(seq):
        return {0: "batch", 1: seq} if seq_axis == 1 else {1: "batch", 0: seq}
    dynamic = {n: axes("seq_" + n) for n in names}
    dynamic["output"] = axes("seq_" + names[0])
    return {"inputs": tuple(torch.randn(*s) for s in shapes), "names": names, "dynamic": dynamic}


def transformer_encoder():
    # post-norm, ReLU, sequence-first: nn.TransformerEncoderLayer's defaults
    return Encoder(False, "relu", False), sequence(["src"], [(5, 2, 32)], 0)


def transformer_encoder_prenorm():
    return Encoder(True, "gelu", True), sequence(["src"], [(2, 5, 32)], 1)


def transformer_decoder():
    return Decoder(), sequence(["tgt", "memory"], [(2, 5, 32), (2, 7, 32)], 1)


# ---- decoder-only language model blocks --------------------------------------

def tokens():
    return {"inputs": (torch.randint(0, 64, (2, 6)),), "names": ["input_ids"],
            "dynamic": {"input_ids": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}}


class GPTBlock(nn.Module):
    """GPT-2's block: pre-LayerNorm, one qkv projection split three ways,
    a causal mask sliced from a lower-triangular buffer and applied with
    Where, tanh-approximated GELU written out as GPT-2 does."""

    def __init__(self, d, heads, max_pos):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool)))

    def split(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        mask = self.bias[:t, :t]
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        a = torch.matmul(w.softmax(-1), v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.c_proj(a)
        h = self.c_fc(self.ln_2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.mlp_proj(h)


class GPT(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, layers=2, max_pos=32):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList(GPTBlock(d, heads, max_pos) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


class RMSNorm(nn.Module):
    """LLaMA's: the mean of squares, no mean subtracted, no bias."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """LLaMA's block: RMSNorm, bias-free q/k/v/o projections, rotary
    position embedding on q and k (rotate_half form), an additive causal
    mask, SwiGLU feed-forward."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(d), RMSNorm(d)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate_proj, self.up_proj = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        h = self.input_layernorm(x)
        q, k, v = (p(h).view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d // self.heads) + mask
        a = torch.matmul(F.softmax(w, dim=-1, dtype=torch.float32), v)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, t, d))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Llama(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, ffn=88, layers=2, max_pos=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaBlock(d, heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, d // heads, 2).float() / (d // heads)))
        freqs = torch.outer(torch.arange(max_pos).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos())
        self.register_buffer("sin_cached", emb.sin())

    def forward(self, ids):
        t = ids.shape[1]
        cos, sin = self.cos_cached[:t], self.sin_cached[:t]
        mask = causal_mask(t)
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


def gpt():
    return GPT(), tokens()


def llama():
    return Llama(), tokens()


# ---- recurrent networks ------------------------------------------------------

class RNNClassifier(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell
        self.head = nn.Linear(cell.hidden_size * (2 if cell.bidirectional else 1), 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


def lstm():
    return RNNClassifier(nn.LSTM(16, 32, num_layers=2, batch_first=True)), sequence(["x"], [(2, 5, 16)], 1)


def gru():
    return RNNClassifier(nn.GRU(16, 32, bidirectional=True, batch_first=True)), sequence(["x"], [(2, 5, 16)], 1)


# ---- control flow: a voice-activity detector in silero's layout --------------

class VadBranch(nn.Module):
    """One sample rate's network as silero's VAD writes it: the audio context
    of the last call prepended, a reflect-padded STFT as a strided Conv1d, the
    magnitude of its real and imaginary halves, a Conv1d encoder, an LSTM over
    time carrying its state, a 1x1 Conv1d and Sigmoid decoder."""

    def __init__(self, n_fft, hop, context):
        super().__init__()
        self.hop, self.context, self.half = hop, context, n_fft // 2 + 1
        self.stft = nn.Conv1d(1, 2 * self.half, n_fft, stride=hop, bias=False)
        self.encoder = nn.Sequential(nn.Conv1d(self.half, 8, 3, padding=1), nn.ReLU(),
                                     nn.Conv1d(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.rnn = nn.LSTM(8, 8, batch_first=True)
        self.decoder = nn.Sequential(nn.ReLU(), nn.Conv1d(8, 1, 1), nn.Sigmoid())

    def forward(self, x, state, context):
        x = torch.cat([context, x], dim=1)
        new_context = x[:, -self.context:]
        x = F.pad(x, (self.hop, self.hop), mode="reflect")
        s = self.stft(x.unsqueeze(1))
        re, im = s[:, :self.half], s[:, self.half:]
        e = self.encoder(torch.sqrt(re * re + im * im))
        y, (h, c) = self.rnn(e.transpose(1, 2), (state[0], state[1]))
        p = self.decoder(y.transpose(1, 2)).squeeze(1).mean(dim=1, keepdim=True)
        return p, torch.stack([h, c]), new_context


class Vad(nn.Module):
    """silero VAD's control flow: an If on the sample rate (16 kHz, 8 kHz, and
    any other rate decimated to 8 kHz in a nested If), whose branches compute
    different lengths from the same dynamic inputs."""

    def __init__(self):
        super().__init__()
        self.at16k = VadBranch(32, 16, 16)
        self.at8k = VadBranch(16, 8, 8)

    def forward(self, x, sr, state, context):
        if bool(sr == 16000):
            p, st, ctx = self.at16k(x, state, context)
        elif bool(sr == 8000):
            p, st, ctx = self.at8k(x, state, context)
        else:
            p, st, ctx = self.at8k(x[:, ::2], state, context)
        return p, st, ctx


def vad():
    spec = {"inputs": (torch.randn(1, 256), torch.tensor(16000), torch.zeros(2, 1, 1, 8), torch.zeros(1, 16)),
            "names": ["input", "sr", "state", "context"],
            "dynamic": {"input": {0: "batch", 1: "samples"}, "state": {1: "batch"},
                        "context": {0: "batch", 1: "context"}},
            "script": True}   # traced, the If would be folded to the example's branch
    return Vad(), spec


# ---- the list: (name, builder, opsets) ---------------------------------------

MODELS = [
    # a CNN's ops are the same at every opset but for mobilenet's HardSwish
    # (14) and convnext's LayerNormalization (17)
    ("resnet18", resnet18, (17,)),
    ("mobilenet_v3_small", mobilenet_v3_small, (13, 17)),
    ("efficientnet_b0", efficientnet_b0, (17,)),
    ("convnext", convnext, ALL_OPSETS),
    ("vit", vit, ALL_OPSETS),
    ("swin_t", swin_t, ALL_OPSETS),
    ("transformer_encoder", transformer_encoder, ALL_OPSETS),
    ("transformer_encoder_prenorm", transformer_encoder_prenorm, ALL_OPSETS),
    ("transformer_decoder", transformer_decoder, ALL_OPSETS),
    ("gpt", gpt, ALL_OPSETS),
    ("llama", llama, ALL_OPSETS),
    ("lstm", lstm, (13, 17)),
    ("gru", gru, (13, 17)),
    ("vad", vad, (16,)),   # silero's opset
]


def randomize(model):
    """Noise on every weight and batch-norm statistic. The default inits
    give many tensors equal values (LayerNorm's ones and zeros, ViT's zero
    head), which the exporter then shares through Identity nodes, a graph
    trained weights never give."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.add_(torch.randn_like(m.running_mean) * 0.05)
                m.running_var.mul_(torch.rand_like(m.running_var) + 0.5)


def export(name, build, opset):
    """The model's bytes; fails on any op left to the ATen fallback."""
    torch.manual_seed(0)
    model, spec = build()
    randomize(model)
    model.eval()   # and autograd stays on: see the header
    if spec.get("script"):
        model = torch.jit.script(model)
    buf = io.BytesIO()
    torch.onnx.export(model, spec["inputs"], buf, opset_version=opset, input_names=spec["names"],
                      output_names=["output"], dynamic_axes=spec["dynamic"],
                      do_constant_folding=True)
    m = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(m)
    bad = sorted({n.op_type for n in m.graph.node if n.domain not in ("", "ai.onnx")})
    if bad:
        sys.exit("torch_exports: %s at opset %d exports non-ONNX ops %s" % (name, opset, bad))
    return buf.getvalue()


def main(models=None):
    """Writes each (name, build, opsets) of models (default MODELS) to OUT."""
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for name, build, opsets in models or MODELS:
        for opset in opsets:
            data = export(name, build, opset)
            path = os.path.join(OUT, "torch_%s_opset%d.onnx" % (name, opset))
            with open(path, "wb") as f:
                f.write(data)
            total += len(data)
            print("%-50s %8d bytes" % (os.path.relpath(path), len(data)))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()
