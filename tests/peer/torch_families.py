#!/usr/bin/python3
"""torch_families.py — more model families as torch.onnx.export writes them,
beside torch_exports.py (whose helpers and export settings it uses): the
spellings of today's transformers and detectors that the first set does not
hold, each as the family's reference code writes it, shrunk to tiny widths.

  bert        post-LayerNorm encoder (Add then LayerNorm), erf GELU,
              additive attention mask from a 0/1 mask input
  t5          T5's RMSNorm (variance in float32, weight times the normed
              state cast back), bias-free ReLU feed-forward
  mistral     grouped-query attention (repeat_kv as expand + reshape),
              rotary embedding, SwiGLU, HF's RMSNorm with its .to(float32)
              and .to(dtype) Casts
  whisper     audio encoder: two Conv1d + GELU stem (the second strided),
              sinusoid positions, pre-LayerNorm encoder layers
  bloom       ALiBi attention bias, BLOOM's tanh GELU written as
              x*0.5*(1+tanh(0.79788456*x*(1+0.044715*x*x)))
  maxvit      torchvision's MaxVit (MBConv, block and grid attention with
              LayerNorm after the window Transposes)
  yolov8_c2f  YOLOv8's Conv(BN, SiLU), C2f (split, bottlenecks, concat), SPPF
  lraspp      torchvision's LRASPPHead and a DeepLab ASPP head on a small
              strided Conv backbone, bilinear upsampling
  video3d     a Conv3d net in r3d's layout (stem, residual 3-D blocks, pool)

usage: torch_families.py [OUTDIR]    default tests/data/torch; writes
       OUTDIR/torch_NAME_opsetN.onnx for every model and opset below
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models import maxvit as tv_maxvit
from torchvision.models.segmentation import lraspp as tv_lraspp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_exports   # noqa: E402
from torch_exports import causal_mask, export, image, rotate_half, tokens   # noqa: E402

TRANSFORMER_OPSETS = (13, 17)


# ---- encoders ----------------------------------------------------------------

class BertLayer(nn.Module):
    """HF BertLayer: self-attention, dense, dropout, Add then LayerNorm
    (post-LN), intermediate erf GELU, output dense, Add then LayerNorm."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out, self.attn_norm = nn.Linear(d, d), nn.LayerNorm(d, eps=1e-12)
        self.intermediate, self.output = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.out_norm = nn.LayerNorm(d, eps=1e-12)

    def heads_first(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.heads, d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = (self.heads_first(p(x)) for p in (self.query, self.key, self.value))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.heads) + mask
        a = torch.matmul(F.softmax(w, dim=-1), v).permute(0, 2, 1, 3).contiguous().view(b, t, d)
        x = self.attn_norm(self.attn_out(a) + x)
        return self.out_norm(self.output(F.gelu(self.intermediate(x))) + x)


class Bert(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, ffn=64, layers=2, max_pos=32):
        super().__init__()
        self.word, self.pos, self.token_type = nn.Embedding(vocab, d), nn.Embedding(max_pos, d), nn.Embedding(2, d)
        self.emb_norm = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, ffn) for _ in range(layers))
        self.pooler = nn.Linear(d, d)

    def forward(self, ids, attention_mask):
        t = ids.shape[1]
        pos = torch.arange(t, dtype=torch.long).unsqueeze(0)
        x = self.emb_norm(self.word(ids) + self.pos(pos) + self.token_type(torch.zeros_like(ids)))
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, mask)
        return torch.tanh(self.pooler(x[:, 0]))


def bert():
    ids = torch.randint(0, 64, (2, 6))
    return Bert(), {"inputs": (ids, torch.ones(2, 6, dtype=torch.long)), "names": ["input_ids", "attention_mask"],
                    "dynamic": {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                "output": {0: "batch"}}}


class HFRMSNorm(nn.Module):
    """HF's LlamaRMSNorm/MistralRMSNorm/T5LayerNorm: the variance in float32,
    the normed state cast back to the input's dtype before the weight. On a
    float32 model both Casts are no-ops."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)


class T5Layer(nn.Module):
    """T5's encoder block: pre-RMSNorm, bias-free attention without scaling,
    a position bias added to the scores, bias-free ReLU feed-forward."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = HFRMSNorm(d), HFRMSNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.wi, self.wo = nn.Linear(d, ffn, bias=False), nn.Linear(ffn, d, bias=False)

    def forward(self, x, bias):
        b, t, d = x.shape
        h = self.norm1(x)
        q, k, v = (p(h).view(b, t, self.heads, d // self.heads).transpose(1, 2) for p in (self.q, self.k, self.v))
        w = torch.matmul(q, k.transpose(3, 2)) + bias
        a = torch.matmul(F.softmax(w.float(), dim=-1).type_as(w), v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(a)
        return x + self.wo(F.relu(self.wi(self.norm2(x))))


class T5(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, ffn=64, layers=2, buckets=8):
        super().__init__()
        self.heads, self.buckets = heads, buckets
        self.embed = nn.Embedding(vocab, d)
        self.rel = nn.Embedding(buckets, heads)
        self.layers = nn.ModuleList(T5Layer(d, heads, ffn) for _ in range(layers))
        self.final_norm = HFRMSNorm(d)

    def forward(self, ids):
        t = ids.shape[1]
        i = torch.arange(t)
        rel = (i[None, :] - i[:, None]).clamp(-(self.buckets // 2), self.buckets // 2 - 1) + self.buckets // 2
        bias = self.rel(rel).permute(2, 0, 1).unsqueeze(0)
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, bias)
        return self.final_norm(x)


def t5():
    return T5(), tokens()


class MistralLayer(nn.Module):
    """Mistral's decoder layer: HF RMSNorm, grouped-query attention (two
    key/value heads for four query heads, repeat_kv by expand and reshape),
    rotary embedding, softmax in float32 cast back, SwiGLU."""

    def __init__(self, d, heads, kv_heads, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.input_layernorm, self.post_attention_layernorm = HFRMSNorm(d), HFRMSNorm(d)
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.gate_proj, self.up_proj = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def repeat_kv(self, x):
        b, h, t, hd = x.shape
        n = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, h, n, t, hd).reshape(b, h * n, t, hd)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd) + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        x = x + self.o_proj(torch.matmul(w, v).transpose(1, 2).reshape(b, t, d))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Mistral(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, kv_heads=2, ffn=88, layers=2, max_pos=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(MistralLayer(d, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = HFRMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        emb = torch.cat([torch.outer(torch.arange(max_pos).float(), inv_freq)] * 2, dim=-1)
        self.register_buffer("cos_cached", emb.cos())
        self.register_buffer("sin_cached", emb.sin())

    def forward(self, ids):
        t = ids.shape[1]
        cos, sin = self.cos_cached[:t].to(torch.float32), self.sin_cached[:t].to(torch.float32)
        mask = causal_mask(t)
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


def mistral():
    return Mistral(), tokens()


class WhisperLayer(nn.Module):
    """Whisper's encoder layer: pre-LayerNorm, attention whose key has no
    bias, erf GELU MLP."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.attn_norm, self.mlp_norm = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q, k, v = (p(h).view(b, t, self.heads, d // self.heads).transpose(1, 2) for p in (self.q, self.k, self.v))
        w = torch.matmul(q * (d // self.heads) ** -0.5, k.transpose(-1, -2))
        x = x + self.o(torch.matmul(F.softmax(w, dim=-1), v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.mlp_norm(x))))


class Whisper(nn.Module):
    def __init__(self, mels=16, d=32, heads=4, ffn=64, layers=2, max_pos=64):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        log_inc = math.log(10000) / (d // 2 - 1)
        inv = torch.exp(-log_inc * torch.arange(d // 2))
        t = torch.arange(max_pos)[:, None] * inv[None, :]
        self.register_buffer("positions", torch.cat([torch.sin(t), torch.cos(t)], dim=1))
        self.layers = nn.ModuleList(WhisperLayer(d, heads, ffn) for _ in range(layers))
        self.ln_post = nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).permute(0, 2, 1)
        x = x + self.positions[:x.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.ln_post(x)


def whisper():
    return Whisper(), {"inputs": (torch.randn(1, 16, 40),), "names": ["mel"],
                       "dynamic": {"mel": {0: "batch", 2: "frames"}, "output": {0: "batch", 1: "frames2"}}}


# ---- decoder: BLOOM ----------------------------------------------------------

def bloom_gelu(x):
    """BLOOM's bloom_gelu_forward, verbatim."""
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


class BloomBlock(nn.Module):
    """BLOOM's block: pre-LayerNorm, fused qkv laid out per head, ALiBi bias
    added to the scaled scores (baddbmm's beta/alpha as Mul and Add), causal
    mask by masked_fill, bloom_gelu MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.input_layernorm, self.post_attention_layernorm = nn.LayerNorm(d), nn.LayerNorm(d)
        self.query_key_value, self.dense = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.dense_h_to_4h, self.dense_4h_to_h = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, alibi, causal):
        b, t, d = x.shape
        h = self.input_layernorm(x)
        qkv = self.query_key_value(h).view(b, t, self.heads, 3, self.hd)
        q, k, v = qkv[..., 0, :], qkv[..., 1, :], qkv[..., 2, :]
        q = q.transpose(1, 2).reshape(b * self.heads, t, self.hd)
        k = k.permute(0, 2, 3, 1).reshape(b * self.heads, self.hd, t)
        v = v.transpose(1, 2).reshape(b * self.heads, t, self.hd)
        w = alibi + torch.bmm(q, k) * (1.0 / math.sqrt(self.hd))
        w = w.view(b, self.heads, t, t).masked_fill(causal, torch.finfo(w.dtype).min)
        p = F.softmax(w, dim=-1, dtype=torch.float32).view(b * self.heads, t, t)
        a = torch.bmm(p, v).view(b, self.heads, t, self.hd).permute(0, 2, 1, 3).reshape(b, t, d)
        x = x + self.dense(a)
        h = self.post_attention_layernorm(x)
        return x + self.dense_4h_to_h(bloom_gelu(self.dense_h_to_4h(h)))


class Bloom(nn.Module):
    def __init__(self, vocab=64, d=32, heads=4, layers=2):
        super().__init__()
        self.heads = heads
        self.word_embeddings = nn.Embedding(vocab, d)
        self.word_embeddings_layernorm = nn.LayerNorm(d)
        self.h = nn.ModuleList(BloomBlock(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        base = 2 ** (-(2 ** -(math.log2(heads) - 3)))
        self.register_buffer("slopes", torch.pow(torch.tensor(base), torch.arange(1, heads + 1).float()))

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(t).float()
        alibi = (self.slopes[:, None] * pos[None, :])[None].expand(b, self.heads, t).reshape(b * self.heads, 1, t)
        i = torch.arange(t)
        causal = (i[None, :] > i[:, None])[None, None]
        x = self.word_embeddings_layernorm(self.word_embeddings(ids))
        for blk in self.h:
            x = blk(x, alibi, causal)
        return self.ln_f(x)


def bloom():
    return Bloom(), tokens()


# ---- vision ------------------------------------------------------------------

def maxvit():
    # maxvit_t's layout (conv stem, per stage MBConv + block attention + grid
    # attention) over two stages of one layer, 8/16 channels, partition 2
    return tv_maxvit.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[8, 16],
                            block_layers=[1, 1], head_dim=4, stochastic_depth_prob=0.0, num_classes=10), image(32)


class YoloConv(nn.Module):
    """ultralytics' Conv: Conv2d without bias, BatchNorm, SiLU."""

    def __init__(self, cin, cout, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.cv1, self.cv2, self.add = YoloConv(c, c, 3), YoloConv(c, c, 3), shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    """ultralytics' C2f: one 1x1 Conv, its output split in two (chunk), n
    bottlenecks on the second half each kept, all concatenated, 1x1 Conv."""

    def __init__(self, cin, cout, n, shortcut):
        super().__init__()
        self.c = cout // 2
        self.cv1, self.cv2 = YoloConv(cin, 2 * self.c), YoloConv((2 + n) * self.c, cout)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.cv1, self.cv2 = YoloConv(cin, cin // 2), YoloConv(cin * 2, cout)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class YoloV8Backbone(nn.Module):
    """YOLOv8's backbone at 4..32 channels, with a detect-style head (a 3x3
    Conv pair and a 1x1 Conv2d)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(YoloConv(3, 4, 3, 2), YoloConv(4, 8, 3, 2), C2f(8, 8, 1, True),
                                  YoloConv(8, 16, 3, 2), C2f(16, 16, 2, True), YoloConv(16, 32, 3, 2),
                                  C2f(32, 32, 1, True), SPPF(32, 32), C2f(32, 32, 1, False))
        self.head = nn.Sequential(YoloConv(32, 16, 3), YoloConv(16, 16, 3), nn.Conv2d(16, 10, 1))

    def forward(self, x):
        return self.head(self.body(x))


def yolov8_c2f():
    return YoloV8Backbone(), image(64)


class SegBackbone(nn.Module):
    """A small strided backbone giving a low-level (stride 4) and a
    high-level (stride 8) feature map: Conv, BatchNorm, HardSwish."""

    def __init__(self):
        super().__init__()
        def block(cin, cout, s):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.Hardswish())
        self.low = nn.Sequential(block(3, 8, 2), block(8, 8, 2))
        self.high = nn.Sequential(block(8, 16, 2), block(16, 24, 1))

    def forward(self, x):
        low = self.low(x)
        return low, self.high(low)


class ASPP(nn.Module):
    """DeepLabV3's ASPP at 8 channels: a 1x1 Conv, three dilated 3x3 Convs,
    image pooling upsampled back, concatenated and projected."""

    def __init__(self, cin, c=8, rates=(2, 4, 6)):
        super().__init__()
        def cbr(k, d):
            return nn.Sequential(nn.Conv2d(cin, c, k, padding=d if k == 3 else 0, dilation=d, bias=False),
                                 nn.BatchNorm2d(c), nn.ReLU())
        self.branches = nn.ModuleList([cbr(1, 1)] + [cbr(3, r) for r in rates])
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, c, 1, bias=False), nn.BatchNorm2d(c),
                                  nn.ReLU())
        self.project = nn.Sequential(nn.Conv2d(5 * c, c, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU())

    def forward(self, x):
        pooled = F.interpolate(self.pool(x), size=x.shape[-2:], mode="bilinear", align_corners=False)
        return self.project(torch.cat([b(x) for b in self.branches] + [pooled], 1))


class SegNet(nn.Module):
    """LRASPP (torchvision's head) and DeepLabV3 (ASPP, 3x3 Conv, 1x1
    classifier) on one backbone, each upsampled to the image."""

    def __init__(self, classes=5):
        super().__init__()
        self.backbone = SegBackbone()
        self.lraspp = tv_lraspp.LRASPPHead(8, 24, classes, 16)
        self.aspp = nn.Sequential(ASPP(24), nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.Conv2d(8, classes, 1))

    def forward(self, x):
        low, high = self.backbone(x)
        a = self.lraspp({"low": low, "high": high})
        b = self.aspp(high)
        size = x.shape[-2:]
        return (F.interpolate(a, size=size, mode="bilinear", align_corners=False)
                + F.interpolate(b, size=size, mode="bilinear", align_corners=False))


def lraspp():
    return SegNet(), image(64)


class Block3d(nn.Module):
    """r3d's BasicBlock: two 3x3x3 Conv3d + BatchNorm3d, ReLU, a 1x1x1
    downsample on stride."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv3d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm3d(cout)
        self.conv2 = nn.Conv3d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm3d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv3d(cin, cout, 1, stride, bias=False), nn.BatchNorm3d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class Video3d(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(3, 4, (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False), nn.BatchNorm3d(4),
                                  nn.ReLU())
        self.layers = nn.Sequential(Block3d(4, 4, 1), Block3d(4, 8, 2), Block3d(8, 16, 2))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


def video3d():
    return Video3d(), {"inputs": (torch.randn(1, 3, 4, 32, 32),), "names": ["clip"],
                       "dynamic": {"clip": {0: "batch"}, "output": {0: "batch"}}}


# ---- the list: (name, builder, opsets) ---------------------------------------

MODELS = [
    ("bert", bert, TRANSFORMER_OPSETS),
    ("t5", t5, TRANSFORMER_OPSETS),
    ("mistral", mistral, TRANSFORMER_OPSETS),
    ("whisper", whisper, TRANSFORMER_OPSETS),
    ("bloom", bloom, TRANSFORMER_OPSETS),
    ("maxvit", maxvit, TRANSFORMER_OPSETS),
    ("yolov8_c2f", yolov8_c2f, (17,)),   # no op of it changes between 13 and 17
    ("lraspp", lraspp, (13, 17)),
    ("video3d", video3d, (17,)),
]


if __name__ == "__main__":
    torch_exports.main(MODELS)
